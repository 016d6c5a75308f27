/**
 * Group commit against a real SQLite file: concurrent writers share commits, a failing member is
 * rolled back alone, and a caller is answered only once its write is visible to another connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../../src/store';
import { failedAsGroup } from '../../../src/group-commit';
import { databaseOf, failCommitsWritingEvent } from '../../../src/testing';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-group-commit-'));
  store = await Store.open({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const write = (key: string) => store.transactionInGroup((trx) => store.runtimeState.insert(key, 'v', trx).then(() => key));
const keysOnDisk = () => {
  // A second connection sees only what is committed.
  const other = new BetterSqlite3(store.location, { readonly: true });
  try {
    return (other.prepare("select key from runtime_state where key like 'gc-%' order by key").all() as { key: string }[]).map((r) => r.key);
  } finally {
    other.close();
  }
};

it('writes started together commit together, and each caller gets its own value', async () => {
  const before = { ...store.groupCommit.stats };
  const keys = Array.from({ length: 20 }, (_, i) => `gc-${String(i).padStart(2, '0')}`);
  expect(await Promise.all(keys.map(write))).toEqual(keys);
  expect(store.groupCommit.stats.members - before.members).toBe(20);
  // All twenty were queued in one turn of the event loop: one transaction, one fsync.
  expect(store.groupCommit.stats.groups - before.groups).toBe(1);
  expect(keysOnDisk()).toEqual(keys);
});

it('a member that fails is rolled back alone and answered with its own error; the others commit', async () => {
  const failing = () =>
    store.transactionInGroup(async (trx) => {
      await store.runtimeState.insert('gc-failing', 'v', trx);
      throw new Error('member failed after writing');
    });
  const duplicate = () => store.transactionInGroup((trx) => store.runtimeState.insert('gc-a', 'again', trx));
  const results = await Promise.allSettled([write('gc-a'), failing(), duplicate(), write('gc-b')]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason.message).toBe('member failed after writing');
  expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
  expect(keysOnDisk()).toEqual(['gc-a', 'gc-b']);
});

it('a caller is answered only after its write is committed (visible to another connection)', async () => {
  const seenAtAnswer = await write('gc-visible').then(() => keysOnDisk());
  expect(seenAtAnswer).toContain('gc-visible');
});

it('writes that arrive while a group is committing form the next group', async () => {
  const before = { ...store.groupCommit.stats };
  const first = write('gc-first');
  // Queued from inside the first group's transaction: too late for it, so it waits for the next.
  let second: Promise<string> | undefined;
  const firstMember = store.transactionInGroup(async (trx) => {
    second = write('gc-second');
    await store.runtimeState.insert('gc-first-member', 'v', trx);
  });
  await Promise.all([first, firstMember]);
  expect(keysOnDisk()).not.toContain('gc-second');
  await second;
  expect(keysOnDisk()).toContain('gc-second');
  expect(store.groupCommit.stats.groups - before.groups).toBe(2);
});

it('tells a failure of the whole group (its commit) from a member\'s own', async () => {
  const own = new Error('refused by its member');
  await expect(store.transactionInGroup(async () => Promise.reject(own))).rejects.toBe(own);
  expect(failedAsGroup(own)).toBe(false);

  await failCommitsWritingEvent(store, 'fail-at-commit');
  const event = (id: string, payload: string) => ({ event_id: id, event_name: 'e', created_at: '2026-01-01T00:00:00.000Z', source: 'test', payload, chain_depth: 0, has_dead_letter: 0 });
  const answers = await Promise.allSettled([
    store.transactionInGroup((trx) => store.runWrites.appendEvents(trx, [{ event: event('evt-a', '{}'), deliveries: [] }])),
    store.transactionInGroup((trx) => store.runWrites.appendEvents(trx, [{ event: event('evt-b', '{"fail-at-commit":1}'), deliveries: [] }])),
  ]);
  // Both shared the commit that failed: both got its error, and it is the group's.
  const [a, b] = answers.map((x) => (x.status === 'rejected' ? x.reason : 'committed'));
  expect(a).toBeInstanceOf(Error);
  expect(b).toBe(a);
  expect(failedAsGroup(a)).toBe(true);
  expect(Number((await databaseOf(store).selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
});
