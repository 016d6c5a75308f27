/**
 * The conformance suite: every file in this folder runs against the engine under test, named by
 * SWITCHBOARD_TEST_DATABASE_URL (unset: SQLite in a temporary folder; a PostgreSQL admin URL: a
 * database of its own per store). Each engine must pass all of them; scripts/test-all.mjs runs
 * the folder once per engine. This file checks what the store tells the runtime and the server
 * about its engine: the capabilities they branch on, and how it classifies its driver's errors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '@switchboard/store';
import { databaseOfTransaction, openTestStore, sql, testEngine } from '@switchboard/store/testing';
import { STORE_ENGINES } from '../../src/engines/index';

const engine = STORE_ENGINES[testEngine()];
let dir: string;
let store: Store;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-conformance-'));
  store = await openTestStore(dir);
});
afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('the store opens on the engine under test and reports its capabilities', () => {
  expect(store.engine).toBe(engine.name);
  expect(store.capabilities).toEqual(engine.capabilities);
  // A store other processes share has concurrent writers; the pipelined guard needs them.
  if (store.capabilities.sharedByProcesses) expect(store.capabilities.concurrentWriters).toBe(true);
  if (store.capabilities.pipelinedGuard) expect(store.capabilities.concurrentWriters).toBe(true);
});

it("the database's clock reads as ISO 8601 UTC text with milliseconds, the offset applied", async () => {
  const { rows } = await store.transaction((tx) => sql<{ now: string; later: string }>`select ${engine.now()} as now, ${engine.now(60_000)} as later`.execute(databaseOfTransaction(tx)));
  const [{ now, later }] = rows as [{ now: string; later: string }];
  expect(now).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(60_000);
  expect(Date.parse(later) - Date.parse(now)).toBeGreaterThanOrEqual(59_000);
  expect(Date.parse(later) - Date.parse(now)).toBeLessThan(61_000);
});

it('classifies a failed statement that is neither busy nor a lost connection as other', async () => {
  const error = await store.transaction((tx) => sql`select * from no_such_table`.execute(databaseOfTransaction(tx))).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(Error);
  expect(store.classifyError(error)).toBe('other');
  expect(store.classifyError(new Error('anything'))).toBe('other');
});
