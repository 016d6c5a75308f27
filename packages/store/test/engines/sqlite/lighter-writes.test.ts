/**
 * Migration 029 on SQLite: the audit trail's seq is the rowid and its targets table has no rowid of
 * its own; the audit actor, event run and run settle-time indexes hold only rows with a value. A
 * store with records from before keeps them (the chain still verifies) and its reads still plan
 * through those indexes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Migrator } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../../src/store';
import { migrationProvider } from '../../../src/migrations';
import { STORE_ENGINES } from '../../../src/engines/index';
import { openSqlite } from '../../../src/engines/sqlite/open-sqlite';
import { entriesOf, queryPlanOf, readOnly } from './query-plan';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-lighter-writes-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const AT = '2026-05-01T12:00:00.000Z';

/** Writes a run per event, half of them settled, and an audit record per event (a token's, or a console user's without one). */
async function fill(store: Store, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    await store.transaction(async (tx) => {
      await store.runWrites.insertRun(tx, { run_id: `run-${i}`, status: i % 2 ? 'completed' : 'running', root_event_id: `evt-${i}`, event_name: 'tick', entity_id: null, bundle_fingerprint: 'b', created_at: AT, settled_at: i % 2 ? AT : null });
      await store.runWrites.appendEvent(
        tx,
        { event_id: `evt-${i}`, event_name: 'tick', created_at: AT, source: 'test', payload: '{}', entity_id: null, run_id: i % 4 === 0 ? `run-${i}` : null, chain_depth: 0, parent_event_id: null, has_dead_letter: 0, replay_of_event_id: null },
        [],
      );
      await store.audit.append(
        { userId: 'usr-1', userName: 'Ada', tokenId: i % 2 ? 'tok-1' : null, channel: i % 2 ? 'api' : 'console', serverId: 'srv', method: 'event.publish', targetIds: [`run-${i}`, `evt-${i}`], outcome: 'ok' },
        tx,
      );
    });
  }
}

const btreesOf = (db: BetterSqlite3.Database, table: string) =>
  (db.prepare("select name from sqlite_master where tbl_name = ? and type in ('table', 'index') order by name").pluck().all(table) as string[]);

it('keeps every record of a store from before, the chain verifying, in the lighter layout', async () => {
  let store = await Store.open({ dataDir: dir });
  await fill(store, 0, 12);
  await store.close();

  // Back to the layout before 029, with its records, as a store made before it has them.
  const opened = openSqlite(dir);
  const down = await new Migrator({ db: opened.db, provider: migrationProvider(STORE_ENGINES.sqlite) }).migrateTo('028_sqlite_sparse_indexes');
  expect(down.error).toBeUndefined();
  await opened.db.destroy();
  const before = readOnly(path.join(dir, 'switchboard.db'), (db) => ({ audit: btreesOf(db, 'audit'), targets: btreesOf(db, 'audit_targets'), settled: entriesOf(db, 'runs_settled') }));
  expect(before).toEqual({ audit: ['audit', 'audit_method', 'audit_token', 'audit_user', 'sqlite_autoindex_audit_1'], targets: ['audit_targets', 'sqlite_autoindex_audit_targets_1'], settled: 12 });

  store = await Store.open({ dataDir: dir });
  try {
    await fill(store, 12, 4);
    expect(await store.audit.verify()).toEqual({ ok: true, verified: 16 });
    const byToken = await store.audit.list({ actor: 'tok-1' }, 100);
    expect(byToken.map((r) => r.seq)).toEqual([16, 14, 12, 10, 8, 6, 4, 2]);
    expect((await store.audit.list({ targetId: 'evt-13' }, 10)).map((r) => r.seq)).toEqual([14]);

    const after = readOnly(store.location, (db) => ({
      // No index beside the table for seq: it is the rowid.
      audit: btreesOf(db, 'audit'),
      targets: btreesOf(db, 'audit_targets'),
      targetsWithoutRowid: /without rowid\s*$/i.test(db.prepare("select sql from sqlite_master where name = 'audit_targets'").pluck().get() as string),
      // One target row per id: the table is its key.
      targetEntries: entriesOf(db, 'audit_targets'),
      token: entriesOf(db, 'audit_token'),
      user: entriesOf(db, 'audit_user'),
      eventRun: entriesOf(db, 'events_run'),
      settled: entriesOf(db, 'runs_settled'),
    }));
    expect(after).toEqual({
      audit: ['audit', 'audit_method', 'audit_token', 'audit_user'],
      targets: ['audit_targets'],
      targetsWithoutRowid: true,
      targetEntries: 32,
      token: 8,
      user: 16,
      eventRun: 4,
      settled: 8,
    });
  } finally {
    await store.close();
  }
});

it('plans the reads of those indexes through them', async () => {
  const store = await Store.open({ dataDir: dir });
  await store.close();
  const plans = readOnly(path.join(dir, 'switchboard.db'), (db) => [
    queryPlanOf(db, 'select * from audit where (user_id = ? or token_id = ?) order by seq desc limit 51'),
    queryPlanOf(db, 'select * from audit where seq in (select seq from audit_targets where target_id = ?) order by seq desc limit 51'),
    queryPlanOf(db, 'select count(*) from events where run_id = ?'),
    queryPlanOf(db, 'select settled_at, run_id from runs where settled_at is not null and settled_at < ? order by settled_at, run_id limit 100'),
  ]);
  expect(plans[0]).toMatch(/INDEX audit_user[\s\S]*INDEX audit_token/);
  expect(plans[1]).toContain('PRIMARY KEY');
  expect(plans[2]).toContain('events_run');
  expect(plans[3]).toContain('runs_settled');
});
