/**
 * Writes of runs and their events: an event and its deliveries go in together, and a run settles
 * (or reopens) by conditional updates. Every method takes the caller's transaction: an event, its
 * deliveries and the change that caused them commit together. The rules (which subscribers, when
 * a run has failed) belong to the runtime; these are its statements.
 */
import type { Insertable, Selectable } from 'kysely';
import type { Database, DeliveriesTable, EventsTable, IngressQueueTable, RunsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { CLAIMABLE, markChange } from '../change-feed';
import { MAX_ROWS_PER_STATEMENT } from './statement-size';
import { insertRows } from './insert-rows';
import { ACTIVE } from './active-conversation';
import type { StoreEngine } from '../engines/engine';
import type { Kysely } from 'kysely';

export type NewEventRow = Omit<Insertable<EventsTable>, 'seq'>;
/** A delivery of an event about to be appended; the event's id, seq and time are filled in. */
export type NewDeliveryRow = Omit<Insertable<DeliveriesTable>, 'event_id' | 'event_seq' | 'event_created_at'>;
export type NewRunRow = Insertable<RunsTable>;
export type NewQueuedPublishRow = Omit<Insertable<IngressQueueTable>, 'seq'>;

/** A publish queued while ingress was paused, as resume releases it. */
export type QueuedPublish = Pick<Selectable<IngressQueueTable>, 'queue_id' | 'event_id' | 'run_id' | 'event_name' | 'payload' | 'entity_id' | 'source' | 'queued_at' | 'traceparent'>;

/** A delivery written for any server to claim (not leased to its writer). */
const awaitsClaim = (d: { status: string }) => d.status === 'pending';

export class RunWriteRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  /** Inserts the event and its deliveries; returns the event's seq. */
  async appendEvent(tx: StoreTx, event: NewEventRow, deliveries: readonly NewDeliveryRow[]): Promise<number> {
    return (await this.appendEvents(tx, [{ event, deliveries }]))[0]!;
  }

  /**
   * Inserts several events, each with its deliveries, in one statement per table (per 500 rows),
   * or on PostgreSQL in one statement for both (insertEventsWithDeliveries) when their rows allow
   * it; returns each event's seq, in the order given. Seqs follow that order.
   *
   * `seqs: false`, for a caller that does not read them: when no event has deliveries (whose rows
   * need their event's seq), the events' statement goes out with the transaction's next one on
   * PostgreSQL, a round trip fewer, and nothing is returned.
   */
  async appendEvents(tx: StoreTx, items: readonly { event: NewEventRow; deliveries: readonly NewDeliveryRow[] }[], { seqs = true }: { seqs?: boolean } = {}): Promise<number[]> {
    if (items.length === 0) return [];
    const trx = executorOf(tx);
    markChange(tx, 'events');
    if (items.some((item) => item.deliveries.some(awaitsClaim))) markChange(tx, CLAIMABLE);
    if (!seqs && items.every((item) => item.deliveries.length === 0)) {
      await this.insertEvents(trx, items, [], { withNext: true });
      return [];
    }
    const together = await this.engine.insertEventsWithDeliveries(trx, items);
    const written = together ?? (await this.insertEvents<{ event_id: string; seq: number | string }>(trx, items, ['event_id', 'seq']));
    const seqOf = new Map(written.map((r) => [r.event_id, Number(r.seq)]));
    if (!together) {
      const deliveries = items.flatMap(({ event, deliveries }) =>
        deliveries.map((d) => ({ ...d, event_id: event.event_id, event_seq: seqOf.get(event.event_id)!, event_created_at: event.created_at })),
      );
      for (let i = 0; i < deliveries.length; i += MAX_ROWS_PER_STATEMENT) {
        await insertRows(this.engine, trx, 'deliveries', deliveries.slice(i, i + MAX_ROWS_PER_STATEMENT));
      }
    }
    return items.map(({ event }) => seqOf.get(event.event_id)!);
  }

  /** The items' events, one statement per 500, returning `returning` of each. */
  private async insertEvents<R>(trx: Kysely<Database>, items: readonly { event: NewEventRow }[], returning: readonly string[], options: { withNext?: boolean } = {}): Promise<R[]> {
    const rows: R[] = [];
    for (let i = 0; i < items.length; i += MAX_ROWS_PER_STATEMENT) {
      rows.push(...(await insertRows<R>(this.engine, trx, 'events', items.slice(i, i + MAX_ROWS_PER_STATEMENT).map((item) => item.event), { returning, ...options })));
    }
    return rows;
  }

  insertRun(tx: StoreTx, run: NewRunRow): Promise<void> {
    return this.insertRuns(tx, [run]);
  }

  /**
   * Several runs in one statement (per 500). On PostgreSQL the statement goes out with the
   * transaction's next one (a publish's events), a round trip fewer: nothing is read back from it.
   */
  async insertRuns(tx: StoreTx, runs: readonly NewRunRow[]): Promise<void> {
    if (runs.length === 0) return;
    markChange(tx, 'runs');
    for (let i = 0; i < runs.length; i += MAX_ROWS_PER_STATEMENT) {
      await insertRows(this.engine, executorOf(tx), 'runs', runs.slice(i, i + MAX_ROWS_PER_STATEMENT), { withNext: true });
    }
  }

  /** The run and depth of an event's chain, for an event that continues it. */
  eventChain(tx: StoreTx, eventId: string): Promise<{ chain_depth: number; run_id: string | null } | undefined> {
    return executorOf(tx).selectFrom('events').select(['chain_depth', 'run_id']).where('event_id', '=', eventId).executeTakeFirst();
  }

  /**
   * Settles a running run whose chain has no open delivery, in one statement: `failed` when one of
   * its dead letters has not been redriven (a redriven one was sent again, and its new delivery
   * decides), `completed` otherwise. Returns the status it settled to; undefined when deliveries
   * are still open or the run was not running (settled by someone else first).
   */
  async settleWhenQuiet(tx: StoreTx, runId: string, settledAt: string): Promise<'completed' | 'failed' | undefined> {
    const row = await executorOf(tx)
      .updateTable('runs')
      .set((eb) => ({
        status: eb
          .case()
          .when(eb.exists(eb.selectFrom('dead_letters').select('dead_letter_id').where('dead_letters.run_id', '=', runId).where('dead_letters.redriven_at', 'is', null)))
          .then('failed')
          .else('completed')
          .end(),
        settled_at: settledAt,
      }))
      .where('run_id', '=', runId)
      .where('status', '=', 'running')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries').select('delivery_id').where('deliveries.run_id', '=', runId).where('deliveries.status', 'in', ['pending', 'in_progress']))),
      )
      .returning('status')
      .executeTakeFirst();
    if (!row) return undefined;
    markChange(tx, 'runs');
    return row.status as 'completed' | 'failed';
  }

  /**
   * settleWhenQuiet for several runs in one statement (per 500); returns the status each run it
   * settled settled to (a run still open, or not running, is missing).
   */
  async settleManyWhenQuiet(tx: StoreTx, runIds: readonly string[], settledAt: string): Promise<Map<string, 'completed' | 'failed'>> {
    const settled = new Map<string, 'completed' | 'failed'>();
    if (runIds.length === 0) return settled;
    for (const r of await this.engine.settleRunsWhenQuiet(executorOf(tx), runIds, settledAt)) settled.set(r.run_id, r.status);
    if (settled.size > 0) markChange(tx, 'runs');
    return settled;
  }

  /** Ends the active conversations scoped to a run. */
  async endRunConversations(tx: StoreTx, runId: string, endedAt: string): Promise<void> {
    markChange(tx, 'agents');
    await executorOf(tx)
      .updateTable('conversations')
      .set({ status: 'ended', ended_at: endedAt })
      .where('scope_key', '=', `run:${runId}`)
      .where('status', '=', ACTIVE)
      .execute();
  }

  /** A settled run (completed or failed) becomes running again. */
  async reopen(tx: StoreTx, runId: string): Promise<void> {
    markChange(tx, 'runs');
    await executorOf(tx).updateTable('runs').set({ status: 'running', settled_at: null }).where('run_id', '=', runId).where('status', 'in', ['completed', 'failed']).execute();
  }

  /** A queued run starts; false when it is no longer queued (cancelled meanwhile). */
  async startQueued(tx: StoreTx, runId: string): Promise<boolean> {
    const res = await executorOf(tx).updateTable('runs').set({ status: 'running' }).where('run_id', '=', runId).where('status', '=', 'queued').executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'runs');
    return true;
  }

  /** Cancels every queued run; returns how many. */
  async cancelQueued(tx: StoreTx, settledAt: string): Promise<number> {
    const res = await executorOf(tx).updateTable('runs').set({ status: 'cancelled', settled_at: settledAt }).where('status', '=', 'queued').executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) markChange(tx, 'runs');
    return Number(res.numUpdatedRows);
  }

  async countByStatus(table: 'runs' | 'deliveries', statuses: readonly string[]): Promise<number> {
    const r = await this.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', 'in', [...statuses])
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** When the oldest pending delivery that is due became due; undefined when none is. */
  async oldestDueAt(nowIso: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('deliveries')
      .select('next_attempt_at')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', nowIso)
      .orderBy('next_attempt_at')
      .limit(1)
      .executeTakeFirst();
    return row?.next_attempt_at;
  }

  // --- publishes queued while ingress is paused ---

  async enqueuePublish(tx: StoreTx, row: NewQueuedPublishRow): Promise<void> {
    markChange(tx, 'ingress');
    await executorOf(tx).insertInto('ingress_queue').values(row).execute();
  }

  /** Publishes waiting for ingress to resume, oldest first: the order resume releases them in. */
  queued(limit: number): Promise<QueuedPublish[]> {
    return this.db
      .selectFrom('ingress_queue')
      .select(['queue_id', 'event_id', 'run_id', 'event_name', 'payload', 'entity_id', 'source', 'queued_at', 'traceparent'])
      .where('status', '=', 'queued')
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  /** Marks one queued publish released; false when another resume released it first. */
  async releaseQueued(tx: StoreTx, queueId: string, releasedAt: string): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('ingress_queue')
      .set({ status: 'released', released_at: releasedAt })
      .where('queue_id', '=', queueId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'ingress');
    return true;
  }

  async queueDepth(): Promise<number> {
    const r = await this.db.selectFrom('ingress_queue').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'queued').executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
