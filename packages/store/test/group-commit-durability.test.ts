/**
 * Which group-commit transactions commit asynchronously: on PostgreSQL, a group whose members all
 * allow it (a delivery's completion), and never one that holds a member needing its commit flushed
 * before its answer (a publish). On SQLite the option changes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store, StoreTx } from '@switchboard/store';
import { databaseOfTransaction, openTestStore, sql, testEngine } from '@switchboard/store/testing';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-group-durability-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A member that writes a row and answers with the transaction's synchronous_commit as its commit will use it. */
const member = (key: string, asyncCommit: boolean) =>
  store.transactionInGroup(async (tx: StoreTx) => {
    await store.runtimeState.insert(key, 'v', tx);
    if (testEngine() !== 'postgres') return 'sqlite';
    const { rows } = await sql<{ v: string }>`select current_setting('synchronous_commit') as v`.execute(databaseOfTransaction(tx));
    return rows[0]!.v;
  }, { asyncCommit });

const keysWritten = () =>
  store.transaction(async (tx) =>
    (await sql<{ key: string }>`select key from runtime_state where key like 'gd-%' order by key`.execute(databaseOfTransaction(tx))).rows.map((r) => r.key),
  );

it('a group of members that all allow it commits asynchronously; one that does not keeps the whole group synchronous', async () => {
  const before = store.groupCommit.stats.groups;
  // Each Promise.all is queued in one turn of the event loop: one group.
  const allAsync = await Promise.all([member('gd-a1', true), member('gd-a2', true), member('gd-a3', true)]);
  const mixed = await Promise.all([member('gd-m1', true), member('gd-m2', false), member('gd-m3', true)]);
  const plain = await Promise.all([member('gd-p1', false)]);
  expect(store.groupCommit.stats.groups - before).toBe(3);
  if (testEngine() === 'postgres') {
    expect(allAsync).toEqual(['off', 'off', 'off']);
    expect(mixed).toEqual(['on', 'on', 'on']);
    expect(plain).toEqual(['on']);
    // Local to its transaction: the next one on the same pool is synchronous again.
    expect(await member('gd-after', false)).toBe('on');
  } else {
    expect([...allAsync, ...mixed, ...plain]).toEqual(Array(7).fill('sqlite'));
  }
  // Every write is committed either way.
  expect(await keysWritten()).toEqual(['gd-a1', 'gd-a2', 'gd-a3', 'gd-m1', 'gd-m2', 'gd-m3', 'gd-p1', ...(testEngine() === 'postgres' ? ['gd-after'] : [])].sort());
});

it('a member that fails in an asynchronous group is rolled back alone, and the others commit asynchronously', async () => {
  const failing = store.transactionInGroup(
    async (tx) => {
      await store.runtimeState.insert('gd-failing', 'v', tx);
      throw new Error('member failed after writing');
    },
    { asyncCommit: true },
  );
  const results = await Promise.allSettled([member('gd-x1', true), failing, member('gd-x2', true)]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  // Run again with a savepoint per member (see GroupCommit.runIsolated): still asynchronous.
  if (testEngine() === 'postgres') expect(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))).toEqual(['off', 'off']);
  expect(await keysWritten()).toEqual(['gd-x1', 'gd-x2']);
});
