/** user.update: a person's role, name and whether they are enabled; the last enabled admin stays one. */
import { describe, expect, it } from 'vitest';
import type { Role } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { expectRpcError } from '../rpc-helpers';
import { addUserWithToken, expectNothingChanged } from './people-fixtures';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});
const person = (role: Role) => addUserWithToken(server, role);
const unchanged = <T>(act: () => Promise<T>) => expectNothingChanged(server, act);

describe('user.update', () => {
  it('renames a user and changes their role, as user.list then shows', async () => {
    const { user } = await ok(server, 'user.create', { display_name: 'Vera Viewer', role: 'viewer' });
    const updated = await ok(server, 'user.update', { user_id: user.id, display_name: 'Vera Operator', role: 'operator' });
    expect(updated.user).toMatchObject({ id: user.id, display_name: 'Vera Operator', role: 'operator' });
    expect((await ok(server, 'user.list', {})).items.find((u) => u.id === user.id)).toMatchObject({ display_name: 'Vera Operator', role: 'operator' });
  });

  it('NOT_FOUND for a user that does not exist', async () => {
    await fails(server, 'user.update', { user_id: 'usr_nobody', role: 'viewer' }, 'NOT_FOUND');
  });

  it('the last enabled admin cannot be demoted or disabled; with a second admin, they can', async () => {
    const admins = (await ok(server, 'user.list', {})).items.filter((u) => u.role === 'admin' && !u.disabled);
    // Only the server's own token's user, unless an earlier test promoted someone: demote them first.
    const self = (await (await fetch(server.url + '/v1/auth/session', { headers: { authorization: `Bearer ${server.token}` } })).json()) as { user: { id: string } };
    for (const other of admins.filter((u) => u.id !== self.user.id)) await ok(server, 'user.update', { user_id: other.id, role: 'viewer' });

    for (const change of [{ role: 'operator' as const }, { disabled: true }]) {
      const answer = await unchanged(() => server.rpcUnchecked('user.update', { user_id: self.user.id, ...change }));
      expectRpcError(answer, 'INVALID_PARAMS');
      expect(answer.error.message).toContain('last enabled admin');
    }
    expect((await server.rpc('health.ping', {})).error).toBeUndefined();

    const second = await person('admin');
    const demoted = await ok(server, 'user.update', { user_id: self.user.id, role: 'operator' });
    expect(demoted.user.role).toBe('operator');
    // The demotion applies to the very next request of the demoted admin's token.
    expect((await server.rpc('user.list', {})).error?.data.code).toBe('FORBIDDEN');
    // And the new last admin is protected in turn.
    const last = await server.rpcUnchecked('user.update', { user_id: second.userId, disabled: true }, { token: second.secret });
    expectRpcError(last, 'INVALID_PARAMS');
    expect((await server.rpc('user.update', { user_id: self.user.id, role: 'admin' }, { token: second.secret })).error).toBeUndefined();
  });

  it('a disabled user is refused with UNAUTHENTICATED until enabled again', async () => {
    const caller = await person('operator');
    await ok(server, 'user.update', { user_id: caller.userId, disabled: true });
    expect((await server.rpc('health.ping', {}, { token: caller.secret })).error?.data.code).toBe('UNAUTHENTICATED');
    await ok(server, 'user.update', { user_id: caller.userId, disabled: false });
    expect((await server.rpc('health.ping', {}, { token: caller.secret })).error).toBeUndefined();
  });
});
