/** People and tokens made through the API, for the user.*, token.* and roles tests. */
import { expect } from 'vitest';
import type { Role, Scope } from '@switchboard/contract';
import { snapshotDifferences, snapshotTables } from '@switchboard/store/testing';
import { ok, waitForQuiet } from '../control-helpers';
import type { TestServer } from '../harness';

/** A new user with `role` and one token of theirs (narrowed to `scopes` if given): their id and the token's secret. */
export async function addUserWithToken(server: TestServer, role: Role, scopes?: Scope[]): Promise<{ userId: string; secret: string }> {
  const { user } = await ok(server, 'user.create', { display_name: `a ${role}`, role });
  const { secret } = await ok(server, 'token.create', { user_id: user.id, name: `${role} token`, ...(scopes ? { scopes } : {}) });
  return { userId: user.id, secret: secret! };
}

/** Runs `act` once the runtime is quiet and checks it changed no table. */
export async function expectNothingChanged<T>(server: TestServer, act: () => Promise<T>): Promise<T> {
  await waitForQuiet(server);
  const before = await snapshotTables(server.store);
  const out = await act();
  expect(snapshotDifferences(before, await snapshotTables(server.store))).toEqual([]);
  return out;
}
