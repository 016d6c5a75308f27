/** Shared by the control-method API tests: the test bundle, call helpers and waiting for the runtime. */
import { fileURLToPath } from 'node:url';
import { databaseOf, snapshotTables, sql } from '@switchboard/store/testing';
import { expect, vi } from 'vitest';
import type { TestServer } from './harness';
import { ok } from './rpc-helpers';

export const CONTROL_BUNDLE = fileURLToPath(new URL('./bundles/control.yaml', import.meta.url));

export { fails, ok } from './rpc-helpers';

/**
 * Polls `check` until it holds. The API tests wait with expect.poll; this stays for the server
 * starter (server-process.ts), whose readiness check throws to fail at once when the child exits,
 * which expect.poll would retry until its timeout instead.
 */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Settled: nothing queued, nothing open, nothing in flight. */
export async function waitForQuiet(server: TestServer, timeoutMs = 20_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const s = await ok(server, 'runtime.status');
      const state = { queue_depth: s.queue_depth, pending_deliveries: s.pending_deliveries, in_flight: server.runtime.dispatcher.inFlightCount, container_starts_idle: server.runtime.containerStartsIdle };
      expect(state, 'the runtime to settle').toEqual({ queue_depth: 0, pending_deliveries: 0, in_flight: 0, container_starts_idle: true });
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

/** Publishes an order, waits for its approval item, returns the pending item's id and the run. */
export async function openOrderItem(server: TestServer, orderId: string, amount = 10): Promise<{ mailbox_id: string; run_id: string; entity_id: string }> {
  const entity_id = `order-${orderId}`;
  const published = await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: orderId, amount }, entity_id });
  const mailboxId = await vi.waitFor(
    async () => {
      const row = await databaseOf(server.store).selectFrom('mailbox_items').select('mailbox_id').where('run_id', '=', published.run_id).executeTakeFirst();
      if (!row) throw new Error(`no approval item of ${orderId} yet`);
      return row.mailbox_id;
    },
    { timeout: 10_000, interval: 20 },
  );
  return { mailbox_id: mailboxId, run_id: published.run_id, entity_id };
}

export async function count(server: TestServer, table: string, where?: [string, unknown]): Promise<number> {
  const filter = where ? sql`where ${sql.ref(where[0])} = ${where[1]}` : sql``;
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} ${filter}`.execute(databaseOf(server.store));
  return Number(rows[0]!.n);
}

/**
 * Every row of every table, for "changed nothing" checks (see snapshotTables: touch columns such as
 * tokens.last_used_at, server heartbeats and the audit trail's tables are left out).
 */
/** The audit trail's tables, which every audited call writes (audit tests read them through audit.list). */
export const AUDIT_TABLES = ['audit', 'audit_targets', 'audit_head'];

export async function storeSnapshot(server: TestServer, options: { without?: string[] } = {}): Promise<Record<string, unknown[]>> {
  return snapshotTables(server.store, options);
}

export function expectSameStore(before: Record<string, unknown[]>, after: Record<string, unknown[]>): void {
  expect(Object.keys(after)).toEqual(Object.keys(before));
  for (const table of Object.keys(before)) expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] });
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
