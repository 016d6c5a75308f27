/**
 * Crash test: the real server process is SIGKILLed in the middle of a redrive of 300 dead letters,
 * then started again on the same data folder. The operation must continue where it stopped and
 * redrive each dead letter exactly once: one new delivery per dead letter, none doubled, none lost.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect, it } from 'vitest';

import { crashServers } from './crash-servers';

const { dataDir, start: startServerProcess, call, rpc } = crashServers('redrive-crash', 'sbk_crash_test_token_0000000002');
const DEAD_LETTERS = 300;

it('a server killed during a redrive of 300 dead letters redrives each exactly once after restart', async () => {
  const first = await startServerProcess();
  for (let b = 0; b < DEAD_LETTERS / 100; b++) {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'event.publish', params: { event_name: 'charge.requested', payload: { n: b * 100 + i } } }));
    const answers = (await call(first.url, batch)) as any[];
    expect(answers.every((a) => a.result?.status === 'running')).toBe(true);
  }
  const reader = new BetterSqlite3(path.join(dataDir, 'switchboard.db'), { readonly: true, fileMustExist: true });
  const scalar = (q: string) => (reader.prepare(q).get() as { n: number }).n;
  await expect.poll(() => scalar(`select count(*) as n from dead_letters`) === DEAD_LETTERS, { timeout: 60_000, interval: 20, message: 'every charge to dead-letter' }).toBe(true);
  await expect.poll(async () => (await rpc(first.url, 'runtime.status')).pending_deliveries === 0, { timeout: 30_000, interval: 20, message: 'the first dispatch to settle' }).toBe(true);

  await rpc(first.url, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'off' });
  const estimate = await rpc(first.url, 'event.redrive', { dry_run: true, filter: { event_name: 'charge.requested' } });
  expect(estimate.plan.to_send).toBe(DEAD_LETTERS);
  const applied = await rpc(first.url, 'event.redrive', { dry_run: false, filter: { event_name: 'charge.requested' }, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 150 });
  const operationId = applied.operation!.operation_id;

  // Kill while the operation is under way, watched from outside (WAL allows a concurrent reader).
  const doneItems = () => scalar(`select count(*) as n from operation_items where status = 'done'`);
  await expect.poll(() => doneItems() >= 50, { timeout: 30_000, interval: 20, message: 'the redrive to be under way' }).toBe(true);
  first.child.kill('SIGKILL');
  await first.exited;
  const doneAtKill = doneItems();
  expect(doneAtKill).toBeGreaterThanOrEqual(50);
  expect(doneAtKill).toBeLessThan(DEAD_LETTERS);

  const second = await startServerProcess();
  await expect.poll(async () => {
      const op = (await rpc(second.url, 'operation.get', { operation_id: operationId, items_limit: 0 })).operation;
      const status = await rpc(second.url, 'runtime.status');
      return op.status === 'completed' && status.pending_deliveries === 0;
    }, { timeout: 60_000, interval: 20, message: 'the restarted runtime to finish the redrive' }).toBe(true);

  const op = (await rpc(second.url, 'operation.get', { operation_id: operationId, items_limit: 0 })).operation;
  expect(op.counts).toEqual({ total: DEAD_LETTERS, done: DEAD_LETTERS, failed: 0, skipped: 0 });
  expect(op.outcomes).toMatchObject({ delivered: DEAD_LETTERS, dead_lettered: 0, pending: 0 });
  // Exactly one redrive delivery per dead letter: none doubled, none lost.
  const perDeadLetter = reader
    .prepare(`select l.dead_letter_id, count(d.delivery_id) as n from dead_letters l left join deliveries d on d.redrive_of_dead_letter_id = l.dead_letter_id group by l.dead_letter_id`)
    .all() as { n: number }[];
  expect(perDeadLetter).toHaveLength(DEAD_LETTERS);
  const histogram = perDeadLetter.reduce<Record<number, number>>((h, r) => ({ ...h, [r.n]: (h[r.n] ?? 0) + 1 }), {});
  expect(histogram).toEqual({ 1: DEAD_LETTERS });
  expect(scalar(`select count(*) as n from dead_letters where redriven_at is null`)).toBe(0);
  expect(scalar(`select count(*) as n from deliveries where redrive_of_dead_letter_id is not null and status = 'delivered'`)).toBe(DEAD_LETTERS);
  expect(scalar(`select count(*) as n from dead_letters l join deliveries d on d.delivery_id = l.redrive_delivery_id where d.redrive_of_dead_letter_id = l.dead_letter_id`)).toBe(DEAD_LETTERS);
  expect(scalar(`select count(*) as n from runs where status = 'completed'`)).toBe(DEAD_LETTERS);
  reader.close();
  second.child.kill('SIGTERM');
  await second.exited;
}, 180_000);
