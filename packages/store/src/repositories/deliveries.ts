import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, DeadLettersTable, EventsTable } from '../schema';

import { executorOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';

/** Who holds a delivery: a change to it counts only while this lease still stands. */
export interface DeliveryLease {
  delivery_id: string;
  owner: string;
  attempts: number;
}

export interface ClaimedRow {
  delivery_id: string;
  event_id: string;
  run_id: string | null;
  subscriber_id: string;
  subscriber_type: string;
  attempts: number;
  max_attempts: number;
}

/**
 * The dispatcher's writes: claims are conditional updates only one claimer wins (pending and due,
 * or in progress with an expired lease), and every outcome is conditional on the lease
 * (delivery, owner, attempt), so a claimer whose lease was taken over changes nothing.
 */
export class DeliveryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Deliveries that may be claimed now, oldest due first. Two index walks, each stopping after
   * `limit` rows, merged here: one query with OR made SQLite sort every due row (1.8 ms per call
   * with 30,000 pending, growing with the backlog).
   */
  async dueCandidates(nowIso: string, limit: number): Promise<{ delivery_id: string; status: string; lease_owner: string | null }[]> {
    // Each walk reads the index on (status, column) and stops after `limit` rows.
    const walk = (status: 'pending' | 'in_progress', column: 'next_attempt_at' | 'lease_expires_at', before: '<=' | '<') =>
      this.db
        .selectFrom('deliveries')
        .select(['delivery_id', 'status', 'lease_owner', 'next_attempt_at'])
        .where('status', '=', status)
        .where(column, before, nowIso)
        .orderBy(column)
        .limit(limit)
        .execute();
    const pending = await walk('pending', 'next_attempt_at', '<=');
    const expired = await walk('in_progress', 'lease_expires_at', '<');
    const due = expired.length === 0 ? pending : [...pending, ...expired].sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : 0));
    return due.slice(0, limit).map(({ delivery_id, status, lease_owner }) => ({ delivery_id, status, lease_owner }));
  }

  /**
   * Takes the given deliveries for `owner` until `leaseUntil`, in one statement: each row is taken
   * only while it is still claimable (pending and due, or in progress with an expired lease), so
   * of two claimers each row goes to one. Returns the rows taken, in the order of `deliveryIds`.
   */
  async claim(tx: StoreTx, deliveryIds: readonly string[], owner: string, leaseUntil: string, nowIso: string): Promise<ClaimedRow[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await executorOf(tx)
      .updateTable('deliveries')
      .set((eb) => ({ status: 'in_progress', lease_owner: owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: nowIso }))
      .where('delivery_id', 'in', [...deliveryIds])
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
          eb.and([eb('status', '=', 'in_progress'), eb('lease_expires_at', '<', nowIso)]),
        ]),
      )
      .returning(['delivery_id', 'event_id', 'run_id', 'subscriber_id', 'subscriber_type', 'attempts', 'max_attempts'])
      .execute();
    const byId = new Map(rows.map((r) => [r.delivery_id, { ...r, attempts: Number(r.attempts), max_attempts: Number(r.max_attempts) }]));
    return deliveryIds.flatMap((id) => byId.get(id) ?? []);
  }

  events(tx: StoreTx, eventIds: string[]): Promise<Selectable<EventsTable>[]> {
    return executorOf(tx).selectFrom('events').selectAll().where('event_id', 'in', eventIds).execute();
  }

  /** A claim is not a change the feed carries (in progress is transient); every outcome below is. */
  private held(tx: StoreTx, lease: DeliveryLease) {
    markChange(tx, 'deliveries');
    return executorOf(tx)
      .updateTable('deliveries')
      .where('delivery_id', '=', lease.delivery_id)
      .where('lease_owner', '=', lease.owner)
      .where('status', '=', 'in_progress')
      .where('attempts', '=', lease.attempts);
  }

  /** Marks a held delivery delivered; false when the lease was lost. */
  async markDelivered(tx: StoreTx, lease: DeliveryLease, nowIso: string): Promise<boolean> {
    const res = await this.held(tx, lease).set({ status: 'delivered', lease_owner: null, lease_expires_at: null, updated_at: nowIso }).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Puts a held delivery back for another attempt at `nextAttemptAt`; false when the lease was lost. */
  async scheduleRetry(tx: StoreTx, lease: DeliveryLease, failure: { next_attempt_at: string; last_error: string; reason_code: string }, nowIso: string): Promise<boolean> {
    const res = await this.held(tx, lease)
      .set({ status: 'pending', lease_owner: null, lease_expires_at: null, ...failure, updated_at: nowIso })
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Marks a held delivery failed for good; false when the lease was lost. */
  async markFailed(tx: StoreTx, lease: DeliveryLease, failure: { last_error: string; reason_code: string }, nowIso: string): Promise<boolean> {
    const res = await this.held(tx, lease).set({ status: 'failed', lease_owner: null, lease_expires_at: null, ...failure, updated_at: nowIso }).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Records a dead letter and flags its event (the has_dead_letter index serves the Dead letters list). */
  async insertDeadLetter(tx: StoreTx, row: Insertable<DeadLettersTable>): Promise<void> {
    markChange(tx, 'deliveries');
    await executorOf(tx).insertInto('dead_letters').values(row).execute();
    await executorOf(tx).updateTable('events').set({ has_dead_letter: 1 }).where('event_id', '=', row.event_id).execute();
  }

  /** Deliveries not finished: pending (including retries waiting out their backoff) or in progress. */
  async openCount(): Promise<number> {
    const r = await this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', 'in', ['pending', 'in_progress'])
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Running runs with no open delivery left (settled by a sweep when no completion noticed). */
  async quietRunIds(limit: number): Promise<string[]> {
    const runs = await this.db
      .selectFrom('runs')
      .select('run_id')
      .where('status', '=', 'running')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries').select('delivery_id').whereRef('deliveries.run_id', '=', 'runs.run_id').where('deliveries.status', 'in', ['pending', 'in_progress']))),
      )
      .limit(limit)
      .execute();
    return runs.map((r) => r.run_id);
  }

  /**
   * Cancels deliveries that have not started (all, or those of the given runs) and marks their
   * running runs cancelled once nothing of them is in progress.
   */
  async cancelPending(tx: StoreTx, runIds: string[] | undefined, nowIso: string): Promise<{ cancelled_deliveries: number; cancelled_runs: number }> {
    let q = executorOf(tx).updateTable('deliveries').set({ status: 'cancelled', lease_owner: null, lease_expires_at: null, updated_at: nowIso }).where('status', '=', 'pending');
    if (runIds) q = q.where('run_id', 'in', runIds);
    const res = await q.executeTakeFirst();
    let runs = executorOf(tx)
      .updateTable('runs')
      .set({ status: 'cancelled', settled_at: nowIso })
      .where('status', '=', 'running')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries').select('delivery_id').whereRef('deliveries.run_id', '=', 'runs.run_id').where('deliveries.status', '=', 'in_progress'))),
      );
    if (runIds) runs = runs.where('run_id', 'in', runIds);
    const r = await runs.executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) markChange(tx, 'deliveries');
    if (Number(r.numUpdatedRows) > 0) markChange(tx, 'runs');
    return { cancelled_deliveries: Number(res.numUpdatedRows), cancelled_runs: Number(r.numUpdatedRows) };
  }
}
