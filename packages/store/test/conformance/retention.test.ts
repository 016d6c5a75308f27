/**
 * Retention's effect on incident counts (ADR 0018), on both engines: once records before an hour
 * were removed and that hour marked, windows count the earlier hours from the rollup, so counts are
 * as before the removal; a window that starts inside such an hour counts that hour whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '@switchboard/store';
import { databaseOf, openTestStore, warnLogRecord } from '@switchboard/store/testing';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-retention-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const warn = (ts: string) => warnLogRecord(ts);

const countIn = async (windowStart: string, windowEnd: string, histogramBuckets = 0) => {
  const groups = await store.incidents.windowGroups({ windowStart, windowEnd, histogramBuckets });
  return groups.map((g) => ({ count: g.count, first_seen: g.first_seen, last_seen: g.last_seen }));
};

it('counts hours before the removal mark from the rollup: the same counts after the records are gone', async () => {
  const times = ['2026-03-01T10:10:00.000Z', '2026-03-01T10:50:00.000Z', '2026-03-01T13:20:00.000Z', '2026-03-02T09:00:00.000Z'];
  for (const ts of times) await store.logs.write(warn(ts));
  const windows: [string, string][] = [
    ['2026-02-28T00:00:00.000Z', '2026-03-03T00:00:00.000Z'],
    ['2026-03-01T09:30:00.000Z', '2026-03-02T12:15:00.000Z'],
    ['2026-03-01T11:00:00.000Z', '2026-03-02T09:30:00.000Z'],
  ];
  const before = [];
  for (const [from, to] of windows) before.push(await countIn(from, to));
  expect(before.map((w) => w[0]?.count)).toEqual([4, 4, 2]);

  // A pass with its cut-off at 2026-03-02T00: the three records before it go, the mark is set.
  const seqs = (await databaseOf(store).selectFrom('logs').select('seq').where('ts', '<', '2026-03-02T00:00:00.000Z').execute()).map((r) => Number(r.seq));
  await store.transaction(async (tx) => {
    await store.retention.markRecordsIncompleteBefore('2026-03-02T00:00:00.000Z', tx);
    expect(await store.retention.removeLogs(seqs, tx)).toBe(3);
  });
  const after = [];
  for (const [from, to] of windows) after.push(await countIn(from, to));
  expect(after).toEqual(before);
  // The per-minute rollup keeps only minutes whose hours still have every record.
  const minutes = await databaseOf(store).selectFrom('incident_minutes').select('minute').orderBy('minute').execute();
  expect(minutes.map((m) => m.minute)).toEqual(['2026-03-02T09:00']);
  // A later mark never moves it back.
  await store.transaction((tx) => store.retention.markRecordsIncompleteBefore('2026-02-01T00:00:00.000Z', tx));
  expect(await countIn(...windows[1]!)).toEqual(before[1]);

  // Inside a removed hour the window's start no longer splits it: 10:30 counts all of 10:00-11:00.
  expect((await countIn('2026-03-01T10:30:00.000Z', '2026-03-03T00:00:00.000Z'))[0]!.count).toBe(4);
});

it('removes a selected run only if it is still finished when its batch is deleted: one reopened meanwhile stays', async () => {
  const db = databaseOf(store);
  const settled = '2026-01-01T00:00:00.000Z';
  const run = (run_id: string) => ({ run_id, status: 'completed', root_event_id: `evt-${run_id}`, event_name: 'work', entity_id: null, bundle_fingerprint: 'b', created_at: settled, settled_at: settled });
  await db.insertInto('runs').values([run('run-kept'), run('run-gone')]).execute();
  const cutoffs = { history: '2026-02-01T00:00:00.000Z' };
  const selected = await store.retention.prunableRuns(cutoffs, 10, undefined, new Set());
  expect(selected.map((r) => r.run_id).sort()).toEqual(['run-gone', 'run-kept']);

  // Between the selection and the delete, a redrive reopens one of them (its settle time cleared).
  await db.updateTable('runs').set({ status: 'running', settled_at: null }).where('run_id', '=', 'run-kept').execute();
  const removed = await store.transaction((tx) => store.retention.removeRuns(selected.map((r) => r.run_id), cutoffs, tx));
  expect(removed.runs).toBe(1);
  expect((await db.selectFrom('runs').select('run_id').execute()).map((r) => r.run_id)).toEqual(['run-kept']);
});

it('removing the rollup hours before a cut-off inside a six-hour block leaves that block the sum of its kept hours', async () => {
  // 2026-03-01: two records at 01:10, one at 03:20 and one at 04:40 (block 00); one at 07:00 (block 06).
  for (const ts of ['2026-03-01T01:10:00.000Z', '2026-03-01T01:50:00.000Z', '2026-03-01T03:20:00.000Z', '2026-03-01T04:40:00.000Z', '2026-03-01T07:00:00.000Z']) await store.logs.write(warn(ts));
  const blocks = () => databaseOf(store).selectFrom('incident_six_hours').select(['block', 'count', 'first_seen', 'last_seen']).orderBy('block').execute();
  expect(await blocks()).toEqual([
    { block: '2026-03-01T00', count: 4, first_seen: '2026-03-01T01:10:00.000Z', last_seen: '2026-03-01T04:40:00.000Z' },
    { block: '2026-03-01T06', count: 1, first_seen: '2026-03-01T07:00:00.000Z', last_seen: '2026-03-01T07:00:00.000Z' },
  ]);
  // The rollup hours that ended before 03:00 go: block 00 keeps 03:00 and 04:00.
  const removed = await store.transaction((tx) => store.retention.incidentHours({ incidentHours: '2026-03-01T03:00:00.000Z' }, tx));
  expect(removed).toBe(1);
  expect(await blocks()).toEqual([
    { block: '2026-03-01T00', count: 2, first_seen: '2026-03-01T03:20:00.000Z', last_seen: '2026-03-01T04:40:00.000Z' },
    { block: '2026-03-01T06', count: 1, first_seen: '2026-03-01T07:00:00.000Z', last_seen: '2026-03-01T07:00:00.000Z' },
  ]);
  // A cut-off on a block's first hour removes the blocks before it whole.
  await store.transaction((tx) => store.retention.incidentHours({ incidentHours: '2026-03-01T06:00:00.000Z' }, tx));
  expect((await blocks()).map((b) => b.block)).toEqual(['2026-03-01T06']);
});
