/** token.list: tokens with their owner, scopes and last use, never their secrets; revoked ones unless left out. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('token.list', () => {
  it("lists a user's tokens without secrets; include_revoked false leaves revoked ones out", async () => {
    const { user } = await ok(server, 'user.create', { display_name: 'Tia Tokens', role: 'operator' });
    const kept = await ok(server, 'token.create', { user_id: user.id, name: 'kept' });
    const gone = await ok(server, 'token.create', { user_id: user.id, name: 'gone' });
    await ok(server, 'token.revoke', { token_id: gone.token.id });
    const all = await ok(server, 'token.list', { user_id: user.id });
    expect(all.items.map((t) => t.name).sort()).toEqual(['gone', 'kept']);
    expect(JSON.stringify(all)).not.toContain(kept.secret!);
    expect(JSON.stringify(all)).not.toContain(gone.secret!);
    expect((await ok(server, 'token.list', { user_id: user.id, include_revoked: false })).items.map((t) => t.id)).toEqual([kept.token.id]);
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'token.list', { include_revoked: 'no' }, 'INVALID_PARAMS');
  });
});
