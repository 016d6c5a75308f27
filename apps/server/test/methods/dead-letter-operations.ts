/**
 * Dead letters to redrive and operations to watch, shared by the event.redrive, event.replay and
 * operation.* tests: the control bundle's charge.requested dead-letters at its charge-card
 * subscriber while mcp.flaky's faults are on.
 */
import { expect } from 'vitest';
import type { Result } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { ok, waitForQuiet } from '../control-helpers';

type Operation = Result<'operation.get'>['operation'];

/** Publishes `n` charge.requested events (each dead-letters while mcp.flaky's faults are on) and waits for them to settle. */
export async function publishCharges(server: TestServer, n: number, batch: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { batch, i } });
    ids.push(r.event_id!);
  }
  await waitForQuiet(server);
  return ids;
}

/** Waits for an operation to stop running, checks its counts add up, and returns it. */
export async function finished(server: TestServer, operationId: string, timeoutMs = 20_000): Promise<Operation> {
  let op: Operation | undefined;
  await expect.poll(async () => {
    op = (await ok(server, 'operation.get', { operation_id: operationId })).operation;
    return op.status !== 'running';
  }, { timeout: timeoutMs, message: `operation ${operationId} to finish` }).toBe(true);
  await expectCountsAddUp(server, operationId);
  return op!;
}

/** done + failed + skipped + pending = total, and the row's counts and outcomes are its items'. */
export async function expectCountsAddUp(server: TestServer, operationId: string): Promise<void> {
  const { operation: op, items } = await ok(server, 'operation.get', { operation_id: operationId, items_limit: 500 });
  const tally = (status: string) => items.filter((i) => i.status === status).length;
  expect(items).toHaveLength(op.counts.total);
  expect({ ...op.counts, pending: tally('pending') }).toEqual({ total: op.counts.total, done: tally('done'), failed: tally('failed'), skipped: tally('skipped'), pending: op.counts.total - op.counts.done - op.counts.failed - op.counts.skipped });
  const outcome = (o: string) => items.filter((i) => i.outcome === o).length;
  expect(op.outcomes).toEqual({ delivered: outcome('delivered'), dead_lettered: outcome('dead_lettered'), cancelled: outcome('cancelled'), pending: items.filter((i) => i.status === 'done' && !i.outcome).length });
}

/** The dead letters of these events, each with its event id. */
export async function deadLettersOf(server: TestServer, eventIds: string[]) {
  const out = [];
  for (const event_id of eventIds) {
    const { events } = await ok(server, 'event.list', { filter: { event_id } });
    out.push(...events[0]!.dead_letters.map((l) => ({ ...l, event_id })));
  }
  return out;
}
