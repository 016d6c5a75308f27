import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ClaimedRow, StoreEngine } from '../engines/engine';
import type { Database, DeadLettersTable, EventsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';
import { MAX_ROWS_PER_STATEMENT } from './statement-size';

export type { ClaimedRow };

/** A running run's place in the quiet-run sweep's walk. */
export interface RunPosition {
  created_at: string;
  run_id: string;
}

/** Who holds a delivery: a change to it counts only while this lease still stands. */
export interface DeliveryLease {
  delivery_id: string;
  owner: string;
  attempts: number;
}

/** A claimed row, and whose lease it took over when it was in progress with an expired lease. */
export interface TakenDelivery extends ClaimedRow {
  reclaimed_from: { owner: string | null } | null;
}

/** A claimed delivery with its event, read in the claim's statement. */
export interface DeliveryWithEvent extends TakenDelivery {
  event: Selectable<EventsTable>;
}

/**
 * The dispatcher's writes: claims are conditional updates only one claimer wins (pending and due,
 * or in progress with an expired lease), and every outcome is conditional on the lease
 * (delivery, owner, attempt), so a claimer whose lease was taken over changes nothing.
 */
export class DeliveryRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  /**
   * Claims up to `limit` deliveries that may be claimed now for `owner` until `leaseUntil` (expired
   * leases first, then due pending ones, oldest first) with their events, unless the
   * `runtime_state` row `lockKey` holds an unexpired lock (a JSON value with `expires_at`, as the
   * reset lock writes it; empty when free): then nothing is claimed and `locked` is true. Each
   * engine has its own algorithm (claim.ts in each engine's folder): several claimers at once on PostgreSQL, one
   * writer on SQLite.
   */
  async claimDueUnlessLocked(lockKey: string, owner: string, leaseUntil: string, nowIso: string, limit: number): Promise<{ locked: boolean; claimed: DeliveryWithEvent[] }> {
    if (limit <= 0) return { locked: false, claimed: [] };
    return this.engine.claimDueUnlessLocked(this.db, { lockKey, owner, leaseUntil, nowIso, limit });
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

  /**
   * Marks every delivery `owner` still holds at the given attempt delivered, in one statement per
   * 500; returns the ids it marked (one whose lease was lost is missing). The dispatcher completes
   * what finished together this way: one statement for the lot, not one each.
   */
  async markDeliveredMany(tx: StoreTx, owner: string, held: readonly Omit<DeliveryLease, 'owner'>[], nowIso: string): Promise<Set<string>> {
    const marked = new Set<string>();
    for (let i = 0; i < held.length; i += MAX_ROWS_PER_STATEMENT) {
      markChange(tx, 'deliveries');
      for (const id of await this.engine.markDelivered(executorOf(tx), owner, held.slice(i, i + MAX_ROWS_PER_STATEMENT), nowIso)) marked.add(id);
    }
    return marked;
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

  /**
   * Deliveries whose handler is running on some server: in progress under a lease that has not
   * expired (a dead server's leases end when it is taken over).
   */
  async leasedCount(nowIso: string): Promise<number> {
    const r = await this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'in_progress')
      .where('lease_expires_at', '>', nowIso)
      .executeTakeFirstOrThrow();
    return Number(r.n);
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

  /**
   * One window of the sweep for running runs with no open delivery left (settled by a sweep when
   * no completion noticed: another process's, or one cut short by a crash). It walks up to `scan`
   * running runs in (created_at, run_id) order after `after` and returns the quiet ones, and where
   * the next window starts (undefined once the walk reached the end). Each idle server sweeps every
   * 2 s, and looking at every running run each time grew with the runs parked behind a backlog
   * (docs/performance-notes.md, "The quiet-run sweep").
   */
  async quietRuns(after: RunPosition | undefined, scan: number): Promise<{ quiet: string[]; next?: RunPosition }> {
    const walked = this.db
      .selectFrom('runs')
      .select(['run_id', 'created_at'])
      .where('status', '=', 'running')
      .$if(after !== undefined, (q) =>
        q.where((eb) => eb.and([eb('created_at', '>=', after!.created_at), eb.or([eb('created_at', '>', after!.created_at), eb('run_id', '>', after!.run_id)])])),
      )
      .orderBy('created_at')
      .orderBy('run_id')
      .limit(scan);
    // A scalar subquery per walked run, one index lookup each. Written as `not exists`,
    // PostgreSQL hashed every open delivery instead, for each window, costing as much as the
    // unbounded sweep.
    const rows = await this.db
      .selectFrom(walked.as('w'))
      .select((eb) => [
        'w.run_id',
        'w.created_at',
        eb.selectFrom('deliveries as d').select('d.delivery_id').whereRef('d.run_id', '=', 'w.run_id').where('d.status', 'in', ['pending', 'in_progress']).limit(1).as('open_delivery'),
      ])
      .orderBy('w.created_at')
      .orderBy('w.run_id')
      .execute();
    const last = rows[rows.length - 1];
    return {
      quiet: rows.filter((r) => r.open_delivery === null).map((r) => r.run_id),
      ...(rows.length === scan && last ? { next: { created_at: last.created_at, run_id: last.run_id } } : {}),
    };
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
