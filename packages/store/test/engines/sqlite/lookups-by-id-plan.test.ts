/**
 * Statements that name their rows by id find them by id. On SQLite, without statistics, a status
 * condition beside the ids can make the planner walk an index that begins with the status instead:
 * every delivered delivery for each item of a replay (a third of a second per item on a store with
 * a million), every running run for each batch of completions, every due delivery for each claim
 * (docs/performance-notes.md). The statements are captured as SQLite prepares them and planned
 * again here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { Store } from '../../../src/store';
import { sqliteEngine } from '../../../src/engines/sqlite/sqlite-engine';
import { claimByIds } from '../../../src/engines/sqlite/claim';
import { databaseOf } from '../../../src/testing';
import { queryPlanOf, readOnly } from './query-plan';

const prepared: string[] = [];
const prepare = BetterSqlite3.prototype.prepare;
beforeAll(() => {
  BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, source: string) {
    prepared.push(source);
    return prepare.call(this, source);
  } as typeof prepare;
});
afterAll(() => {
  BetterSqlite3.prototype.prepare = prepare;
});

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-settle-plan-'));
  store = await Store.open({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const planOf = (text: string) => readOnly(store.location, (db) => queryPlanOf(db, text));

for (const kind of ['replay', 'redrive'] as const) {
  it(`a ${kind} settles each item through its ${kind === 'replay' ? 'event' : 'delivery'} id, not through the deliveries' status`, async () => {
    const now = new Date().toISOString();
    await store.transaction((tx) =>
      store.operations.create(
        tx,
        { operation_id: 'op', kind, status: 'running', selection: '{}', plan_hash: 'h', rate_per_second: 10, total: 1, actor_token_id: 't', created_at: now, updated_at: now },
        ['target-1'],
      ),
    );
    await store.transaction(async (tx) => {
      const [item] = await store.operations.pendingItems(tx, 'op', 1);
      await store.operations.finishItem(tx, item!, 'done', 'result-1', null, now, 'result-1');
    });
    prepared.length = 0;
    await store.transaction((tx) => store.operations.settle(tx, { operation_id: 'op', kind }, now));

    const settles = prepared.filter((text) => text.includes('operation_items') && text.includes('deliveries'));
    expect(settles.length).toBeGreaterThan(0);
    for (const text of settles) {
      const plan = planOf(text);
      expect(plan, `${text}\n${plan}`).toContain(kind === 'replay' ? 'USING INDEX deliveries_event (event_id=?)' : 'USING INDEX sqlite_autoindex_deliveries_1 (delivery_id=?)');
      expect(plan, `${text}\n${plan}`).not.toMatch(/deliveries_(claim|lease)/);
    }
  });
}

it('a batch of completions settles its runs through their ids', async () => {
  const db = databaseOf(store);
  // A dispatcher's batch: with a few ids SQLite took the ids' index either way.
  const ids = Array.from({ length: 64 }, (_, i) => `run-${i}`);
  prepared.length = 0;
  await db.transaction().execute((trx) => sqliteEngine.settleRunsWhenQuiet(trx, ids, new Date().toISOString()));
  const settles = prepared.filter((text) => text.startsWith('update "runs"'));
  expect(settles).toHaveLength(1);
  expect(planOf(settles[0]!)).toMatch(/^SEARCH runs USING INDEX sqlite_autoindex_runs_1 \(run_id=\?\)/);
});

it('a claim takes its candidates through their ids, not through every due delivery', async () => {
  const ids = Array.from({ length: 64 }, (_, i) => `d-${i}`);
  prepared.length = 0;
  await databaseOf(store).transaction().execute((trx) => claimByIds(trx, ids, 'server-1', new Date(Date.now() + 60_000).toISOString(), new Date().toISOString()));
  const claims = prepared.filter((text) => text.startsWith('update "deliveries"'));
  expect(claims).toHaveLength(1);
  expect(planOf(claims[0]!)).toMatch(/^SEARCH deliveries USING INDEX sqlite_autoindex_deliveries_1 \(delivery_id=\?\)/);
});

it("retention removes a batch of audit records' targets by their keys, not by walking every target", async () => {
  for (let i = 0; i < 4; i++) await store.audit.append({ channel: 'api', serverId: 's', method: 'event.publish', targetIds: [`evt-${i}`, `run-${i}`], outcome: 'ok' });
  prepared.length = 0;
  await store.transaction((tx) => store.retention.removeAuditThrough(2, tx));
  const deletes = prepared.filter((text) => text.startsWith('delete from "audit_targets"'));
  expect(deletes).toHaveLength(1);
  const plan = planOf(deletes[0]!);
  expect(plan, `${deletes[0]}\n${plan}`).toMatch(/^SEARCH audit_targets USING PRIMARY KEY \(target_id=\? AND seq=\?\)/);
  expect(await store.audit.verify()).toEqual({ ok: true, verified: 2 });
});
