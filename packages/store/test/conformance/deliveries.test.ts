/**
 * Which deliveries the dispatcher may claim: pending ones that are due and in-progress ones whose
 * lease expired, oldest due first, never more than asked for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { NewDeliveryRow, Store } from '@switchboard/store';
import { databaseOf, databaseOfTransaction, openTestStore } from '@switchboard/store/testing';
// SQLite's claim in two steps; plain SQL that both engines run the same.
import { claimByIds, dueCandidates } from '../../src/engines/sqlite/claim';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-deliveries-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const NOW = '2026-05-01T12:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(NOW) + minutes * 60_000).toISOString();

function delivery(id: string, status: string, nextAttemptAt: string, leaseExpiresAt: string | null = null): NewDeliveryRow {
  return {
    delivery_id: id,
    run_id: 'run-1',
    subscriber_id: 'sub',
    subscriber_type: 'node',
    status,
    attempts: status === 'pending' ? 0 : 1,
    max_attempts: 3,
    next_attempt_at: nextAttemptAt,
    lease_owner: leaseExpiresAt ? 'other-process' : null,
    lease_expires_at: leaseExpiresAt,
    last_error: null,
    reason_code: null,
    session_id: null,
    created_at: at(-60),
    updated_at: at(-60),
  };
}

async function seed(deliveries: NewDeliveryRow[]): Promise<void> {
  await store.transaction((tx) =>
    store.runWrites.appendEvent(
      tx,
      { event_id: 'evt-1', event_name: 'tick', created_at: at(-60), source: 'test', payload: '{}', entity_id: null, run_id: 'run-1', chain_depth: 0, parent_event_id: null, has_dead_letter: 0, replay_of_event_id: null },
      deliveries,
    ),
  );
}

it('returns due pending deliveries and expired leases, oldest due first, and nothing else', async () => {
  await seed([
    delivery('d-pending-late', 'pending', at(-1)),
    delivery('d-pending-future', 'pending', at(5)),
    delivery('d-expired', 'in_progress', at(-30), at(-2)),
    delivery('d-leased', 'in_progress', at(-40), at(10)),
    delivery('d-pending-early', 'pending', at(-20)),
    delivery('d-delivered', 'delivered', at(-50)),
  ]);
  const due = await dueCandidates(databaseOf(store), NOW, 10);
  expect(due.map((d) => d.delivery_id)).toEqual(['d-expired', 'd-pending-early', 'd-pending-late']);
  expect(due.find((d) => d.delivery_id === 'd-expired')).toMatchObject({ status: 'in_progress', lease_owner: 'other-process' });
});

it('never returns more than the limit, taking the oldest due across both kinds', async () => {
  await seed([
    delivery('d-p1', 'pending', at(-10)),
    delivery('d-p2', 'pending', at(-9)),
    delivery('d-p3', 'pending', at(-8)),
    delivery('d-x1', 'in_progress', at(-12), at(-1)),
    delivery('d-x2', 'in_progress', at(-7), at(-1)),
  ]);
  expect((await dueCandidates(databaseOf(store), NOW, 3)).map((d) => d.delivery_id)).toEqual(['d-x1', 'd-p1', 'd-p2']);
  expect((await dueCandidates(databaseOf(store), NOW, 1)).map((d) => d.delivery_id)).toEqual(['d-x1']);
});

it('claims in one statement only what is still claimable, in the order asked, and each row once', async () => {
  await seed([
    delivery('d-due', 'pending', at(-5)),
    delivery('d-future', 'pending', at(5)),
    delivery('d-expired', 'in_progress', at(-30), at(-1)),
    delivery('d-leased', 'in_progress', at(-30), at(10)),
    delivery('d-done', 'delivered', at(-50)),
  ]);
  const ids = ['d-expired', 'd-future', 'd-leased', 'd-due', 'd-done', 'd-unknown'];
  const until = at(1);
  const first = await store.transaction((tx) => claimByIds(databaseOfTransaction(tx), ids, 'me', until, NOW));
  expect(first.map((d) => [d.delivery_id, d.attempts])).toEqual([
    ['d-expired', 2],
    ['d-due', 1],
  ]);
  // Taken now (leased until `until`): a second claimer gets nothing.
  expect(await store.transaction((tx) => claimByIds(databaseOfTransaction(tx), ids, 'someone-else', until, NOW))).toEqual([]);
});

it('claims with the events while the lock row is free or expired, and nothing while it is held', async () => {
  await seed([delivery('d-pending', 'pending', at(-5)), delivery('d-expired', 'in_progress', at(-30), at(-2)), delivery('d-future', 'pending', at(5))]);
  const holder = (expiresAt: string) => JSON.stringify({ reset_id: 'rst_1', started_at: at(-1), expires_at: expiresAt });
  await store.runtimeState.set('claim_lock', holder(at(1)));
  expect(await store.deliveries.claimDueUnlessLocked('claim_lock', 'me', at(1), NOW, 10)).toEqual({ locked: true, claimed: [] });
  expect((await dueCandidates(databaseOf(store), NOW, 10)).map((d) => d.delivery_id)).toEqual(['d-expired', 'd-pending']);

  // An expired holder (its process died) stops nothing.
  await store.runtimeState.set('claim_lock', holder(at(-1)));
  const { locked, claimed } = await store.deliveries.claimDueUnlessLocked('claim_lock', 'me', at(30), NOW, 10);
  expect(locked).toBe(false);
  expect(claimed.map((c) => [c.delivery_id, c.attempts, c.reclaimed_from])).toEqual([
    ['d-expired', 2, { owner: 'other-process' }],
    ['d-pending', 1, null],
  ]);
  for (const c of claimed) expect(c.event).toMatchObject({ event_id: 'evt-1', event_name: 'tick', payload: '{}', run_id: 'run-1', chain_depth: 0 });
  expect(await dueCandidates(databaseOf(store), NOW, 10)).toEqual([]);

  // A free lock row (empty) and no row at all stop nothing either; the future delivery comes when due.
  await store.runtimeState.set('claim_lock', '');
  expect((await store.deliveries.claimDueUnlessLocked('claim_lock', 'me', at(20), at(6), 10)).claimed.map((c) => c.delivery_id)).toEqual(['d-future']);
  expect(await store.deliveries.claimDueUnlessLocked('no_such_lock', 'me', at(20), at(6), 10)).toEqual({ locked: false, claimed: [] });
});

it('marks delivered, in one statement, only what the owner still holds at that attempt', async () => {
  const held = (id: string, owner: string, attempts: number): NewDeliveryRow => ({ ...delivery(id, 'in_progress', at(-5), at(10)), lease_owner: owner, attempts });
  await seed([held('d-mine', 'me', 1), held('d-mine-2', 'me', 2), held('d-retaken', 'me', 3), held('d-theirs', 'other', 1), delivery('d-pending', 'pending', at(-5))]);
  const marked = await store.transaction((tx) =>
    store.deliveries.markDeliveredMany(
      tx,
      'me',
      [
        { delivery_id: 'd-mine', attempts: 1 },
        { delivery_id: 'd-mine-2', attempts: 2 },
        // Claimed again since this attempt began: the old attempt's result does not count.
        { delivery_id: 'd-retaken', attempts: 2 },
        { delivery_id: 'd-theirs', attempts: 1 },
        { delivery_id: 'd-pending', attempts: 0 },
      ],
      NOW,
    ),
  );
  expect([...marked].sort()).toEqual(['d-mine', 'd-mine-2']);
  const rows = await databaseOf(store).selectFrom('deliveries').select(['delivery_id', 'status', 'lease_owner', 'updated_at']).orderBy('delivery_id').execute();
  expect(rows).toEqual([
    { delivery_id: 'd-mine', status: 'delivered', lease_owner: null, updated_at: NOW },
    { delivery_id: 'd-mine-2', status: 'delivered', lease_owner: null, updated_at: NOW },
    { delivery_id: 'd-pending', status: 'pending', lease_owner: null, updated_at: at(-60) },
    { delivery_id: 'd-retaken', status: 'in_progress', lease_owner: 'me', updated_at: at(-60) },
    { delivery_id: 'd-theirs', status: 'in_progress', lease_owner: 'other', updated_at: at(-60) },
  ]);
});

it('walks running runs in windows for the quiet-run sweep: each once, the quiet ones named, then from the start again', async () => {
  // Twelve running runs, created in pairs within the same millisecond (the run id breaks the tie),
  // every third with an open delivery; and a settled run, which no window may name.
  const runs = Array.from({ length: 12 }, (_, i) => ({ run_id: `run-${String(i).padStart(2, '0')}`, created_at: at(Math.floor(i / 2)), open: i % 3 === 0 }));
  await store.transaction(async (tx) => {
    await store.runWrites.insertRuns(tx, [
      ...runs.map((r) => ({ run_id: r.run_id, status: 'running', root_event_id: `evt-${r.run_id}`, event_name: 'tick', entity_id: null, bundle_fingerprint: 'f', created_at: r.created_at, settled_at: null })),
      { run_id: 'run-settled', status: 'completed', root_event_id: 'evt-settled', event_name: 'tick', entity_id: null, bundle_fingerprint: 'f', created_at: at(0), settled_at: at(1) },
    ]);
    for (const r of runs) {
      await store.runWrites.appendEvent(
        tx,
        { event_id: `evt-${r.run_id}`, event_name: 'tick', created_at: r.created_at, source: 'test', payload: '{}', entity_id: null, run_id: r.run_id, chain_depth: 0, parent_event_id: null, has_dead_letter: 0, replay_of_event_id: null },
        [{ ...delivery(`d-${r.run_id}`, r.open ? 'pending' : 'delivered', at(-1)), run_id: r.run_id }],
      );
    }
  });
  const windows: string[][] = [];
  let after: Awaited<ReturnType<Store['deliveries']['quietRuns']>>['next'];
  do {
    const window = await store.deliveries.quietRuns(after, 5);
    windows.push(window.quiet);
    after = window.next;
  } while (after !== undefined && windows.length < 10);
  // 12 runs by 5: two full windows and one of 2 (which ends the walk).
  expect(windows).toEqual([
    ['run-01', 'run-02', 'run-04'],
    ['run-05', 'run-07', 'run-08'],
    ['run-10', 'run-11'],
  ]);
  expect((await store.deliveries.quietRuns(undefined, 100)).quiet).toEqual(runs.filter((r) => !r.open).map((r) => r.run_id));
});
