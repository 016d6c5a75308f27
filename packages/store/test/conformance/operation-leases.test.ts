/**
 * Operation leases (ADR 0013), on both engines: a running operation is claimed only when no live
 * server holds it, a claim bumps the epoch, and the fence (renew) of the previous holder then
 * matches nothing; counts and outcomes move with the items, so they always add up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '@switchboard/store';
import { openTestStore } from '@switchboard/store/testing';

let dir: string;
let store: Store;
const LEASE_MS = 60_000;
const DEAD_AFTER_MS = 5_000;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-operation-leases-'));
  store = await openTestStore(dir);
  for (const server_id of ['node-a', 'node-b']) await store.servers.register({ server_id, host: 'test', pid: 1, version: 'test' });
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function createOperation(operation_id: string, targets: string[], owner?: string): Promise<void> {
  const now = new Date().toISOString();
  await store.transaction((tx) =>
    store.operations.create(
      tx,
      { operation_id, kind: 'replay', status: 'running', selection: '{}', plan_hash: 'h', rate_per_second: 10, total: targets.length, actor_token_id: 't', created_at: now, updated_at: now },
      targets,
      owner ? { owner, leaseMs: LEASE_MS } : undefined,
    ),
  );
}

it('a held operation is claimed by no other live server; a dead holder loses it, and its fence then matches nothing', async () => {
  await createOperation('op_held', ['e1', 'e2'], 'node-a');
  const a = { operation_id: 'op_held', owner: 'node-a', epoch: 1 };
  expect(await store.operations.claimable(DEAD_AFTER_MS)).toEqual([]);
  expect(await store.operations.claim('op_held', 'node-b', LEASE_MS, DEAD_AFTER_MS)).toBeUndefined();
  expect(await store.operations.renew(a, LEASE_MS)).toBe(true);

  // node-a stops beating: it is dead, and node-b takes the operation over with a new epoch.
  await store.servers.remove('node-a');
  expect(await store.operations.claimable(DEAD_AFTER_MS)).toEqual(['op_held']);
  expect(await store.operations.claim('op_held', 'node-b', LEASE_MS, DEAD_AFTER_MS)).toBe(2);
  expect(await store.operations.renew(a, LEASE_MS)).toBe(false);
  expect(await store.operations.renew({ ...a, owner: 'node-b', epoch: 2 }, LEASE_MS)).toBe(true);
  expect(await store.operations.claim('op_held', 'node-a', LEASE_MS, DEAD_AFTER_MS)).toBeUndefined();
});

it('an unowned or expired lease is claimable; a cancelled operation fences its holder and is never claimed', async () => {
  await createOperation('op_free', ['e1']);
  expect(await store.operations.claimable(DEAD_AFTER_MS)).toEqual(['op_free']);
  expect(await store.operations.claim('op_free', 'node-a', -1, DEAD_AFTER_MS)).toBe(1);
  // Its lease already expired: another live server may claim it.
  expect(await store.operations.claim('op_free', 'node-b', LEASE_MS, DEAD_AFTER_MS)).toBe(2);
  const now = new Date().toISOString();
  expect(await store.transaction((tx) => store.operations.finish(tx, 'op_free', 'cancelled', now))).toBe(true);
  expect(await store.operations.renew({ operation_id: 'op_free', owner: 'node-b', epoch: 2 }, LEASE_MS)).toBe(false);
  expect(await store.operations.claimable(DEAD_AFTER_MS)).toEqual([]);
});

it('counts add up with the items, and an operation ends only when everything is sent and settled', async () => {
  await createOperation('op_counts', ['e1', 'e2', 'e3'], 'node-a');
  const now = new Date().toISOString();
  await store.transaction(async (tx) => {
    const [first, second] = await store.operations.pendingItems(tx, 'op_counts', 2);
    expect(await store.operations.finishItem(tx, first!, 'done', 'missing-event', null, now, 'missing-event')).toBe(true);
    expect(await store.operations.finishItem(tx, second!, 'skipped', null, 'the event no longer exists', now)).toBe(true);
    expect(await store.operations.finishItem(tx, second!, 'failed', null, 'again', now)).toBe(false);
    await store.operations.addCounts(tx, 'op_counts', { done: 1, failed: 0, skipped: 1 }, now);
  });
  const op = (await store.operations.get('op_counts'))!;
  expect({ done: op.done, failed: op.failed, skipped: op.skipped, total: op.total, outcome_pending: op.outcome_pending }).toEqual({ done: 1, failed: 0, skipped: 1, total: 3, outcome_pending: 1 });
  // One item still pending: not finished.
  expect(await store.transaction((tx) => store.operations.finishIfSettled(tx, 'op_counts', now))).toBe(false);
  // A replayed event with no open delivery settles as delivered.
  expect(await store.transaction((tx) => store.operations.settle(tx, { operation_id: 'op_counts', kind: 'replay' }, now))).toEqual({ delivered: 1, dead_lettered: 0, cancelled: 0 });
  expect(await store.transaction((tx) => store.operations.settle(tx, { operation_id: 'op_counts', kind: 'replay' }, now))).toEqual({ delivered: 0, dead_lettered: 0, cancelled: 0 });
  await store.transaction(async (tx) => {
    const [last] = await store.operations.pendingItems(tx, 'op_counts', 1);
    await store.operations.finishItem(tx, last!, 'failed', null, 'its own error', now);
    await store.operations.addCounts(tx, 'op_counts', { done: 0, failed: 1, skipped: 0 }, now);
  });
  expect(await store.transaction((tx) => store.operations.finishIfSettled(tx, 'op_counts', now))).toBe(true);
  const ended = (await store.operations.get('op_counts'))!;
  expect({ status: ended.status, delivered: ended.delivered, outcome_pending: ended.outcome_pending, lease_owner: ended.lease_owner }).toEqual({
    status: 'completed_with_failures',
    delivered: 1,
    outcome_pending: 0,
    lease_owner: null,
  });
  expect(ended.done + ended.failed + ended.skipped).toBe(ended.total);
});
