import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Engine } from '../engine';
import type { Database, DeadLettersTable, EventsTable } from '../schema';

import { executorOf, storeTxOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';
import { MAX_ROWS_PER_STATEMENT } from './statement-size';
import { prepared } from '../prepared-statements';
import { compiledOnce } from '../compiled-once';

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

export interface ClaimedRow {
  delivery_id: string;
  event_id: string;
  run_id: string | null;
  subscriber_id: string;
  subscriber_type: string;
  attempts: number;
  max_attempts: number;
}

/** Whether a lock row's value (empty when free, else JSON with `expires_at`) is held at `nowIso`. */
function lockIsHeld(value: string, nowIso: string): boolean {
  if (value === '') return false;
  try {
    const expires = (JSON.parse(value) as { expires_at?: unknown }).expires_at;
    return typeof expires === 'string' && expires > nowIso;
  } catch {
    return false;
  }
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
 * markChunkDelivered on PostgreSQL. Array parameters: one text for any count, prepared once per
 * connection and compiled once per database handle.
 */
const markDeliveredByArrays = compiledOnce((db, nowIso: string, ids: string[], attempts: number[], owner: string) =>
  sql<{ delivery_id: string }>`
    update deliveries set status = 'delivered', lease_owner = null, lease_expires_at = null, updated_at = ${nowIso}
    where delivery_id = any(${ids}::text[])
      and (delivery_id, attempts) in (select * from unnest(${ids}::text[], ${attempts}::int[]))
      and lease_owner = ${owner} and status = 'in_progress'
    returning delivery_id${prepared}`,
);

/**
 * The dispatcher's writes: claims are conditional updates only one claimer wins (pending and due,
 * or in progress with an expired lease), and every outcome is conditional on the lease
 * (delivery, owner, attempt), so a claimer whose lease was taken over changes nothing.
 */
export class DeliveryRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /**
   * SQLite's claim (one writer): up to `limit` deliveries that may be claimed now for `owner` until
   * `leaseUntil`, in-progress ones whose lease expired first, then pending ones that are due, oldest
   * due first. The candidates are read, then taken by one conditional update.
   */
  private async claimDueOnSqlite(tx: StoreTx, owner: string, leaseUntil: string, nowIso: string, limit: number): Promise<TakenDelivery[]> {
    const candidates = await this.dueCandidates(nowIso, limit, tx);
    if (candidates.length === 0) return [];
    const byId = new Map(candidates.map((c) => [c.delivery_id, c]));
    return (await this.claim(tx, [...byId.keys()], owner, leaseUntil, nowIso)).map((row) => {
      const c = byId.get(row.delivery_id)!;
      return { ...row, reclaimed_from: c.status === 'in_progress' ? { owner: c.lease_owner } : null };
    });
  }

  /**
   * Claims up to `limit` deliveries that may be claimed now for `owner` until `leaseUntil` (expired
   * leases first, then due pending ones, oldest first) with their events, unless the
   * `runtime_state` row `lockKey` holds an unexpired lock (a JSON value with `expires_at`, as the
   * reset lock writes it; empty when free): then nothing is claimed and `locked` is true.
   *
   * On PostgreSQL this is one statement in a transaction of its own (an idle dispatcher polls with
   * it, and each round trip counts): it reads the lock row `FOR SHARE`, so a holder taking the lock
   * waits for the claim to commit and a claim that waited for the holder sees it; it picks the rows
   * `FOR UPDATE SKIP LOCKED` (through `claimable_deliveries`, migration 010: a plan that does not
   * follow stale statistics), so claimers on several nodes take disjoint rows without waiting for
   * each other, updates them and returns them joined with their events. On SQLite: one transaction
   * of a read, the claim and the events' read.
   *
   * The update finds the picked rows by primary key (`= any(array(...))`) and each event is read by
   * its key (a lateral subquery with `limit 1`, which the planner does not flatten into a join).
   * Written as plain joins, the planner expected about as many rows from `picked` as a small table
   * holds and hashed a sequential scan of all of `deliveries` and all of `events` on every claim:
   * 7,000 and 13,700 rows, half of a claim's 8-11 ms in a 2-node drain (auto_explain), and growing
   * with the tables. In PostgreSQL's own time (pg_stat_statements) the claim went from 159 to
   * 92-117 us per delivery claimed.
   */
  async claimDueUnlessLocked(lockKey: string, owner: string, leaseUntil: string, nowIso: string, limit: number): Promise<{ locked: boolean; claimed: DeliveryWithEvent[] }> {
    if (limit <= 0) return { locked: false, claimed: [] };
    if (this.engine !== 'postgres') {
      return this.db.transaction().execute(async (trx) => {
        const lock = await trx.selectFrom('runtime_state').select('value').where('key', '=', lockKey).executeTakeFirst();
        if (lock && lockIsHeld(lock.value, nowIso)) return { locked: true, claimed: [] };
        const tx = storeTxOf(trx);
        const taken = await this.claimDueOnSqlite(tx, owner, leaseUntil, nowIso, limit);
        if (taken.length === 0) return { locked: false, claimed: [] };
        const events = new Map((await this.events(tx, [...new Set(taken.map((d) => d.event_id))])).map((e) => [e.event_id, e]));
        return { locked: false, claimed: taken.map((d) => ({ ...d, event: events.get(d.event_id)! })) };
      });
    }
    const { rows } = await sql<ClaimedRow & { previous_owner: string | null; reclaimed: boolean; locked_now: boolean } & Record<`e_${keyof EventsTable & string}`, unknown>>`
      with lock as (
        select value from runtime_state where key = ${lockKey} for share
      ),
      free as (
        select not exists (
          select 1 from lock where case when value not like '{%' then false else (value::json ->> 'expires_at') > ${nowIso} end
        ) as free
      ),
      picked as (
        select * from claimable_deliveries(${nowIso}, ${limit}, (select free from free))
      ),
      taken as (
        update deliveries d
        set status = 'in_progress', lease_owner = ${owner}, lease_expires_at = ${leaseUntil}, attempts = d.attempts + 1, updated_at = ${nowIso}
        where d.delivery_id = any(array(select delivery_id from picked))
        returning d.delivery_id, d.event_id, d.run_id, d.subscriber_id, d.subscriber_type, d.attempts, d.max_attempts
      )
      select (select not free from free) as locked_now, taken.*, picked.previous_owner, picked.reclaimed,
        e.event_id as e_event_id, e.event_name as e_event_name, e.created_at as e_created_at, e.source as e_source, e.payload as e_payload,
        e.entity_id as e_entity_id, e.run_id as e_run_id, e.parent_event_id as e_parent_event_id, e.chain_depth as e_chain_depth, e.seq as e_seq,
        e.has_dead_letter as e_has_dead_letter, e.replay_of_event_id as e_replay_of_event_id, e.traceparent as e_traceparent
      from (select 1) one
      left join (
        taken
        join picked on picked.delivery_id = taken.delivery_id
        cross join lateral (select * from events where events.event_id = taken.event_id limit 1) e
      ) on true`.execute(this.db);
    const locked = rows.length > 0 && Boolean(rows[0]!.locked_now);
    const claimed = rows
      .filter((r) => r.delivery_id !== null)
      .map((r) => {
        const event = {
          event_id: r.e_event_id,
          event_name: r.e_event_name,
          created_at: r.e_created_at,
          source: r.e_source,
          payload: r.e_payload,
          entity_id: r.e_entity_id,
          run_id: r.e_run_id,
          parent_event_id: r.e_parent_event_id,
          chain_depth: r.e_chain_depth,
          seq: r.e_seq,
          has_dead_letter: r.e_has_dead_letter,
          replay_of_event_id: r.e_replay_of_event_id,
          traceparent: r.e_traceparent,
        } as Selectable<EventsTable>;
        return {
          delivery_id: r.delivery_id,
          event_id: r.event_id,
          run_id: r.run_id,
          subscriber_id: r.subscriber_id,
          subscriber_type: r.subscriber_type,
          attempts: Number(r.attempts),
          max_attempts: Number(r.max_attempts),
          reclaimed_from: r.reclaimed ? { owner: r.previous_owner } : null,
          event,
        };
      });
    return { locked, claimed };
  }

  /**
   * Deliveries that may be claimed now, oldest due first. Two index walks, each stopping after
   * `limit` rows, merged here: one query with OR made SQLite sort every due row (1.8 ms per call
   * with 30,000 pending, growing with the backlog).
   */
  async dueCandidates(nowIso: string, limit: number, tx?: StoreTx): Promise<{ delivery_id: string; status: string; lease_owner: string | null }[]> {
    // Each walk reads the index on (status, column) and stops after `limit` rows.
    const walk = (status: 'pending' | 'in_progress', column: 'next_attempt_at' | 'lease_expires_at', before: '<=' | '<') =>
      (tx ? executorOf(tx) : this.db)
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

  /**
   * Marks every delivery `owner` still holds at the given attempt delivered, in one statement per
   * 500; returns the ids it marked (one whose lease was lost is missing). The dispatcher completes
   * what finished together this way: one statement for the lot, not one each.
   */
  async markDeliveredMany(tx: StoreTx, owner: string, held: readonly Omit<DeliveryLease, 'owner'>[], nowIso: string): Promise<Set<string>> {
    const marked = new Set<string>();
    for (let i = 0; i < held.length; i += MAX_ROWS_PER_STATEMENT) {
      markChange(tx, 'deliveries');
      for (const id of await this.markChunkDelivered(executorOf(tx), owner, held.slice(i, i + MAX_ROWS_PER_STATEMENT), nowIso)) marked.add(id);
    }
    return marked;
  }

  /** One statement of markDeliveredMany; the ids it marked. The id list alone lets the planner use the primary key; the pairs add the attempt. */
  private async markChunkDelivered(trx: Kysely<Database>, owner: string, chunk: readonly Omit<DeliveryLease, 'owner'>[], nowIso: string): Promise<string[]> {
    const ids = chunk.map((l) => l.delivery_id);
    if (this.engine === 'postgres') {
      const { rows } = await markDeliveredByArrays(trx, nowIso, ids, chunk.map((l) => l.attempts), owner);
      return rows.map((r) => r.delivery_id);
    }
    const rows = await trx
      .updateTable('deliveries')
      .set({ status: 'delivered', lease_owner: null, lease_expires_at: null, updated_at: nowIso })
      .where('delivery_id', 'in', ids)
      .where(({ eb, refTuple, tuple }) => eb(refTuple('delivery_id', 'attempts'), 'in', chunk.map((l) => tuple(l.delivery_id, l.attempts))))
      .where('lease_owner', '=', owner)
      .where('status', '=', 'in_progress')
      .returning('delivery_id')
      .execute();
    return rows.map((r) => r.delivery_id);
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
   * Deliveries whose handler is running on some node: in progress under a lease that has not
   * expired (a dead node's leases end when it is taken over).
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
   * the next window starts (undefined once the walk reached the end). Each idle node sweeps every
   * 2 s, and looking at every running run each time grew with the runs parked behind a backlog:
   * PostgreSQL took 50-60 ms a sweep with 30,000 (8.5 ms with 7,000 in a fresh database, 40-50 ms
   * in a drained one); a window of 1,000 took 6 ms with 30,000.
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
    // PostgreSQL hashed every open delivery instead, for each window: 36 ms a window with 30,000
    // open, as much as the unbounded sweep.
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
