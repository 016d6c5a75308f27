/** token.create: a token for a user, optionally narrowed to scopes; its secret is shown in the creating answer only. */
import { describe, expect, it } from 'vitest';
import type { Scope } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('token.create', () => {
  it('NOT_FOUND for a user that does not exist; INVALID_PARAMS for a scope outside the contract', async () => {
    await fails(server, 'token.create', { user_id: 'usr_nobody', name: 'ghost' }, 'NOT_FOUND');
    const { user } = await ok(server, 'user.create', { display_name: 'Scoped', role: 'operator' });
    await fails(server, 'token.create', { user_id: user.id, name: 'odd', scopes: ['everything:always'] }, 'INVALID_PARAMS');
  });

  it("token.create's secret is in its answer, never in an idempotent replay nor in token.list", async () => {
    const { user } = await ok(server, 'user.create', { display_name: 'Service account', role: 'operator' });
    const params = { user_id: user.id, name: 'publisher', scopes: ['events:publish'] as Scope[], idempotency_key: 'token-once' };
    const first = await ok(server, 'token.create', params);
    expect(first.secret).toMatch(/^sbk_/);
    expect(first.token).toMatchObject({ user_id: user.id, scopes: ['events:publish'], prefix: first.secret!.slice(0, 8) });
    const replay = await server.rpc('token.create', params);
    expect(replay.error).toBeUndefined();
    expect(replay.result!.token.id).toBe(first.token.id);
    expect(replay.result).not.toHaveProperty('secret');
    expect(JSON.stringify(replay)).not.toContain(first.secret!);
    const listed = await ok(server, 'token.list', { user_id: user.id });
    expect(listed.items.map((t) => t.id)).toEqual([first.token.id]);
    expect(JSON.stringify(listed)).not.toContain(first.secret!);
    // The secret works, for what the token was narrowed to.
    expect((await server.rpc('event.publish', { event_name: 'tick', payload: { n: 4 } }, { token: first.secret! })).error).toBeUndefined();
    expect((await server.rpc('health.ping', {}, { token: first.secret! })).error?.data.code).toBe('FORBIDDEN');
  });
});
