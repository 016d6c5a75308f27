/** token.revoke: a revoked token authenticates nothing from its next request on; revoking twice says so. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('token.revoke', () => {
  it('revokes a token: its next request is UNAUTHENTICATED; a second revoke answers already_revoked', async () => {
    const { user } = await ok(server, 'user.create', { display_name: 'Rex Revoked', role: 'operator' });
    const { token, secret } = await ok(server, 'token.create', { user_id: user.id, name: 'laptop' });
    expect((await server.rpc('health.ping', {}, { token: secret! })).error).toBeUndefined();
    const revoked = await ok(server, 'token.revoke', { token_id: token.id });
    expect(revoked).toMatchObject({ token: { id: token.id }, already_revoked: false });
    expect((await server.rpc('health.ping', {}, { token: secret! })).error?.data.code).toBe('UNAUTHENTICATED');
    expect((await ok(server, 'token.revoke', { token_id: token.id })).already_revoked).toBe(true);
  });

  it('NOT_FOUND for a token that does not exist', async () => {
    const missing = await fails(server, 'token.revoke', { token_id: 'tok_nothing' }, 'NOT_FOUND');
    expect(missing.data.details).toEqual({ token_id: 'tok_nothing' });
  });
});
