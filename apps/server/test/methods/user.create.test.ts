/** user.create: a person with a name, an optional email and one role; idempotent by key. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { keyMaker, withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});
const newKey = keyMaker('user');

describe('user.create', () => {
  it('creates an enabled user with the role asked for, listed by user.list; a replay by key creates no second one', async () => {
    const params = { display_name: 'Rena Reviewer', email: 'rena@example.com', role: 'reviewer' as const, idempotency_key: newKey() };
    const { user } = await ok(server, 'user.create', params);
    expect(user).toMatchObject({ id: expect.stringMatching(/^usr_/), display_name: 'Rena Reviewer', email: 'rena@example.com', role: 'reviewer', disabled: false });
    expect((await ok(server, 'user.create', params)).user.id).toBe(user.id);
    expect((await ok(server, 'user.list', {})).items.filter((u) => u.display_name === 'Rena Reviewer')).toHaveLength(1);
  });

  it('INVALID_PARAMS for a role outside the contract or an empty name, creating nobody', async () => {
    const before = (await ok(server, 'user.list', {})).items.length;
    await fails(server, 'user.create', { display_name: 'Sam', role: 'superuser' }, 'INVALID_PARAMS');
    await fails(server, 'user.create', { display_name: '', role: 'viewer' }, 'INVALID_PARAMS');
    expect((await ok(server, 'user.list', {})).items).toHaveLength(before);
  });
});
