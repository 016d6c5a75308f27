/** user.list: every person with their role, whether they are enabled and when they were last seen. */
import { describe, expect, it } from 'vitest';
import type { Role } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { addUserWithToken } from './people-fixtures';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});
const person = (role: Role) => addUserWithToken(server, role);

describe('user.list', () => {
  it('lists the server\'s own admin and everyone created since, with their roles', async () => {
    const before = (await ok(server, 'user.list', {})).items;
    expect(before.some((u) => u.role === 'admin' && !u.disabled)).toBe(true);
    const reviewer = await person('reviewer');
    const after = (await ok(server, 'user.list', {})).items;
    expect(after).toHaveLength(before.length + 1);
    expect(after.find((u) => u.id === reviewer.userId)).toMatchObject({ role: 'reviewer', display_name: 'a reviewer' });
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'user.list', { role: 'admin' }, 'INVALID_PARAMS');
  });

  it("a person's first request marks them seen, with their token's last use", async () => {
    const viewer = await person('viewer');
    const before = (await ok(server, 'user.list', {})).items.find((u) => u.id === viewer.userId)!;
    expect(before.last_seen_at).toBeUndefined();
    await server.rpc('health.ping', {}, { token: viewer.secret });
    // The touch is written beside the request, not before its answer: wait for it.
    await expect
      .poll(async () => (await ok(server, 'user.list', {})).items.find((u) => u.id === viewer.userId)!.last_seen_at, { timeout: 5_000 })
      .toEqual(expect.any(String));
    const [token] = (await ok(server, 'token.list', { user_id: viewer.userId })).items;
    expect(token!.last_used_at).toBe((await ok(server, 'user.list', {})).items.find((u) => u.id === viewer.userId)!.last_seen_at);
  });
});
