/**
 * The incident rollup rows kept in memory on SQLite stay what the tables hold: a window read again
 * after a write sees the write, whoever made it (the store's own repositories, a raw statement on
 * its connection, another connection to the file, a transaction that rolled back).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../../src/store';
import { databaseOf, sql, warnLogRecord } from '../../../src/testing';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-rollup-cache-'));
  store = await Store.open({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const warn = (ts: string, component = 'svc') => warnLogRecord(ts, { component });

// Four days in 3 buckets of 32 hours (bounds at 03-02T08 and 03-03T16): each bucket has whole six-hour
// blocks and whole hours (03-02T06 and 07 are hours of bucket 0), read from memory after the first call.
const WINDOW = { windowStart: '2026-03-01T00:00:00.000Z', windowEnd: '2026-03-05T00:00:00.000Z', histogramBuckets: 3 };
const counts = async () => (await store.incidents.windowGroups(WINDOW)).map((g) => ({ component: g.component, count: g.count, histogram: g.histogram, last_seen: g.last_seen }));

beforeEach(async () => {
  for (const ts of ['2026-03-01T03:10:00.000Z', '2026-03-02T07:00:00.000Z', '2026-03-02T13:30:00.000Z', '2026-03-04T22:05:00.000Z']) await store.logs.write(warn(ts));
  expect(await counts()).toEqual([{ component: 'svc', count: 4, histogram: [2, 1, 1], last_seen: '2026-03-04T22:05:00.000Z' }]);
});

it('a record written into a period already read is counted on the next read', async () => {
  await store.logs.write(warn('2026-03-03T08:15:00.000Z'));
  await store.logs.write(warn('2026-03-02T13:40:00.000Z', 'other'));
  expect(await counts()).toEqual([
    { component: 'svc', count: 5, histogram: [2, 2, 1], last_seen: '2026-03-04T22:05:00.000Z' },
    { component: 'other', count: 1, histogram: [0, 1, 0], last_seen: '2026-03-02T13:40:00.000Z' },
  ]);
});

it('a raw statement on the store\'s own connection is seen, in the hourly and the six-hourly rollup', async () => {
  const db = databaseOf(store);
  await db.updateTable('incident_hours').set({ count: 10 }).where('hour', '=', '2026-03-02T07').execute();
  await db.updateTable('incident_six_hours').set({ count: 7 }).where('block', '=', '2026-03-04T18').execute();
  // Bucket 0 reads hour 07 from the hourly rollup, bucket 2 the block of 18:00 from the six-hourly one.
  expect(await counts()).toEqual([{ component: 'svc', count: 11 + 1 + 7, histogram: [11, 1, 7], last_seen: '2026-03-04T22:05:00.000Z' }]);
});

it('a commit by another connection to the file is seen', async () => {
  const other = new BetterSqlite3(store.location);
  try {
    other.prepare("update incident_six_hours set count = 3 where block = '2026-03-01T00'").run();
  } finally {
    other.close();
  }
  expect(await counts()).toEqual([{ component: 'svc', count: 6, histogram: [4, 1, 1], last_seen: '2026-03-04T22:05:00.000Z' }]);
});

it('a write that rolled back leaves the rows as they were', async () => {
  await expect(
    store.transaction(async (tx) => {
      await store.logs.write(warn('2026-03-03T08:15:00.000Z'), tx);
      throw new Error('rolled back on purpose');
    }),
  ).rejects.toThrow('rolled back on purpose');
  expect(await counts()).toEqual([{ component: 'svc', count: 4, histogram: [2, 1, 1], last_seen: '2026-03-04T22:05:00.000Z' }]);
  await store.logs.write(warn('2026-03-03T08:15:00.000Z'));
  expect(await counts()).toEqual([{ component: 'svc', count: 5, histogram: [2, 2, 1], last_seen: '2026-03-04T22:05:00.000Z' }]);
});

it('a reset that removes the records empties the window', async () => {
  await store.transaction((tx) => store.resets.deleteRunScoped(tx));
  expect(await counts()).toEqual([]);
});

it('minutes of cut hours read from memory see a record written into them', async () => {
  // 2 buckets with the bound at 12:05: hour 12 is read whole into bucket 1 and its minutes 12:00-12:04
  // moved to bucket 0; the last hour, cut by the window's end, is read per minute.
  const cut = { windowStart: '2026-03-01T00:00:00.000Z', windowEnd: '2026-03-02T00:10:00.000Z', histogramBuckets: 2 };
  const cutCounts = async () => (await store.incidents.windowGroups(cut)).map((g) => ({ count: g.count, histogram: g.histogram }));
  await store.logs.write(warn('2026-03-01T12:02:00.000Z'));
  await store.logs.write(warn('2026-03-02T00:05:00.000Z'));
  expect(await cutCounts()).toEqual([{ count: 3, histogram: [2, 1] }]);
  await store.logs.write(warn('2026-03-01T12:03:00.000Z'));
  await store.logs.write(warn('2026-03-02T00:07:00.000Z'));
  expect(await cutCounts()).toEqual([{ count: 5, histogram: [3, 2] }]);
});

it('the periods written are drained every few thousand records even when no window is read', async () => {
  const marks = async () => Number((await sql<{ n: number }>`select count(*) as n from rollup_writes`.execute(databaseOf(store))).rows[0]!.n);
  // 5,000 records in 5,000 minutes, one transaction, no window read in between.
  await store.transaction(async (tx) => {
    for (let i = 0; i < 5000; i++) await store.logs.write(warn(new Date(Date.parse('2026-04-01T00:00:00.000Z') + i * 60_000).toISOString()), tx);
  });
  // Drained at the 4,096th: what is left names the last 904 minutes and their hours and blocks.
  expect(await marks()).toBeLessThan(1000);
  expect(await counts()).toEqual([{ component: 'svc', count: 4, histogram: [2, 1, 1], last_seen: '2026-03-04T22:05:00.000Z' }]);
});
