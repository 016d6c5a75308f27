import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { Database, OperationItemsTable, OperationsTable } from '../schema';
import { eventConditionsOf, type EventFilter, type PageTables } from './events';

export type OperationRow = Selectable<OperationsTable>;
export type OperationItemRow = Selectable<OperationItemsTable>;

/** A dead letter a redrive selection matches, with what the plan and the apply need of it. */
export interface DeadLetterMatch {
  dead_letter_id: string;
  event_id: string;
  event_name: string;
  subscriber_id: string | null;
  reason_code: string | null;
  created_at: string;
  error_message: string | null;
  redriven_at: string | null;
}

/** An event a replay selection matches. */
export interface EventMatch {
  event_id: string;
  event_name: string;
  created_at: string;
  entity_id: string | null;
}

export interface DeadLetterSelection extends EventFilter {
  dead_letter_ids?: string[];
  subscriber_ids?: string[];
}

export interface EventSelection extends EventFilter {
  event_ids?: string[];
}

/** The dead letter a redrive item sends again, with the delivery that failed. */
export interface RedriveSource {
  dead_letter_id: string;
  redriven_at: string | null;
  event_id: string;
  event_name: string;
  event_seq: number;
  event_created_at: string;
  run_id: string | null;
  subscriber_id: string | null;
  subscriber_type: string | null;
  max_attempts: number | null;
}

export interface OperationPosition {
  created_at: string;
  operation_id: string;
}

import { executorOf, type StoreTx } from '../store-tx';
import { CLAIMABLE, markChange } from '../change-feed';

function timeBounds(column: string, filter: EventFilter): Expression<SqlBool>[] {
  const c: Expression<SqlBool>[] = [];
  if (filter.since !== undefined) c.push(sql<SqlBool>`${sql.ref(column)} >= ${filter.since}`);
  if (filter.until !== undefined) c.push(sql<SqlBool>`${sql.ref(column)} < ${filter.until}`);
  return c;
}

/**
 * Redrive and replay: what a selection matches, the durable operations with their items, and the
 * writes that send one item (each in the caller's transaction, so an item's effect and its
 * "done" commit together and a restart never sends it twice).
 */
export class OperationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Dead letters of the events the event filter selects; subscriber_id and reason_code apply to the
   * dead letter itself. Newest first.
   */
  async matchDeadLetters(selection: DeadLetterSelection): Promise<DeadLetterMatch[]> {
    if (selection.has_dead_letter === false) return [];
    const db = this.db as unknown as Kysely<PageTables>;
    const { subscriber_id, reason_code, ...eventFilter } = selection;
    const rows = await db
      .selectFrom('dead_letters as l')
      .innerJoin('events as e', 'e.seq', 'l.event_seq')
      .select(['l.dead_letter_id', 'l.event_id', 'e.event_name', 'l.subscriber_id', 'l.reason_code', 'l.created_at', 'l.error_message', 'l.redriven_at'])
      .where((eb) => {
        const c = [...eventConditionsOf(eb, eventFilter, null), ...timeBounds('l.event_created_at', selection)];
        if (subscriber_id !== undefined) c.push(eb('l.subscriber_id', '=', subscriber_id));
        if (reason_code !== undefined) c.push(eb('l.reason_code', '=', reason_code));
        if (selection.dead_letter_ids) c.push(eb('l.dead_letter_id', 'in', selection.dead_letter_ids));
        if (selection.subscriber_ids) c.push(eb('l.subscriber_id', 'in', selection.subscriber_ids));
        return eb.and(c);
      })
      .orderBy('l.created_at', 'desc')
      .orderBy('l.dead_letter_id', 'desc')
      .execute();
    return rows;
  }

  /** Events the event filter selects, exactly as event.list does. Newest first. */
  async matchEvents(selection: EventSelection): Promise<EventMatch[]> {
    const db = this.db as unknown as Kysely<PageTables>;
    return db
      .selectFrom('events as e')
      .select(['e.event_id', 'e.event_name', 'e.created_at', 'e.entity_id'])
      .where((eb) => {
        const c = [...eventConditionsOf(eb, selection, null), ...timeBounds('e.created_at', selection)];
        if (selection.event_ids) c.push(eb('e.event_id', 'in', selection.event_ids));
        return eb.and(c);
      })
      .orderBy('e.created_at', 'desc')
      .orderBy('e.seq', 'desc')
      .execute();
  }

  /** The events a replay published of `eventId`, oldest first, with their runs. */
  replaysOf(eventId: string): Promise<{ event_id: string; run_id: string | null; created_at: string }[]> {
    return this.db
      .selectFrom('events')
      .select(['event_id', 'run_id', 'created_at'])
      .where('replay_of_event_id', '=', eventId)
      .orderBy('seq')
      .limit(100)
      .execute();
  }

  /** Writes the operation and one pending item per target, in order. */
  async create(tx: StoreTx, op: Omit<OperationRow, 'done' | 'failed' | 'skipped' | 'finished_at' | 'cancelled_by_token_id' | 'error'>, targets: string[]): Promise<void> {
    markChange(tx, 'operations');
    await executorOf(tx)
      .insertInto('operations')
      .values({ ...op, done: 0, failed: 0, skipped: 0, finished_at: null, cancelled_by_token_id: null, error: null })
      .execute();
    for (let i = 0; i < targets.length; i += 500) {
      await executorOf(tx)
        .insertInto('operation_items')
        .values(targets.slice(i, i + 500).map((target_id, k) => ({ operation_id: op.operation_id, item_index: i + k, target_id, status: 'pending', result_id: null, note: null, processed_at: null })))
        .execute();
    }
  }

  get(operationId: string, tx?: StoreTx): Promise<OperationRow | undefined> {
    return (tx ? executorOf(tx) : this.db).selectFrom('operations').selectAll().where('operation_id', '=', operationId).executeTakeFirst();
  }

  async list(options: { status?: string; kind?: string; limit: number; after?: OperationPosition }): Promise<{ operations: OperationRow[]; next?: OperationPosition }> {
    const rows = await this.db
      .selectFrom('operations')
      .selectAll()
      .where((eb) => {
        const c: Expression<SqlBool>[] = [];
        if (options.status) c.push(eb('status', '=', options.status));
        if (options.kind) c.push(eb('kind', '=', options.kind));
        if (options.after) {
          const a = options.after;
          c.push(eb.or([eb('created_at', '<', a.created_at), eb.and([eb('created_at', '=', a.created_at), eb('operation_id', '<', a.operation_id)])]));
        }
        return eb.and(c);
      })
      .orderBy('created_at', 'desc')
      .orderBy('operation_id', 'desc')
      .limit(options.limit + 1)
      .execute();
    const page = rows.slice(0, options.limit);
    const last = page[page.length - 1];
    return rows.length > options.limit && last ? { operations: page, next: { created_at: last.created_at, operation_id: last.operation_id } } : { operations: page };
  }

  /** Items in order, each with the event it concerns (a redriven dead letter's, or the replayed one). */
  items(operationId: string, limit: number): Promise<(OperationItemRow & { event_id: string | null })[]> {
    return this.db
      .selectFrom('operation_items as i')
      .leftJoin('dead_letters as l', 'l.dead_letter_id', 'i.target_id')
      .selectAll('i')
      .select((eb) => eb.fn.coalesce('l.event_id', 'i.target_id').as('event_id'))
      .where('i.operation_id', '=', operationId)
      .orderBy('i.item_index')
      .limit(limit)
      .execute();
  }

  /** Ids of operations still running (a restarted process continues them). */
  async runningIds(): Promise<string[]> {
    const rows = await this.db.selectFrom('operations').select('operation_id').where('status', '=', 'running').orderBy('created_at').execute();
    return rows.map((r) => r.operation_id);
  }

  pendingItems(tx: StoreTx, operationId: string, limit: number): Promise<OperationItemRow[]> {
    return executorOf(tx)
      .selectFrom('operation_items')
      .selectAll()
      .where('operation_id', '=', operationId)
      .where('status', '=', 'pending')
      .orderBy('item_index')
      .limit(limit)
      .execute();
  }

  /** Records one item's result; false when it was no longer pending (another process sent it). */
  async finishItem(tx: StoreTx, item: { operation_id: string; item_index: number }, status: 'done' | 'failed' | 'skipped', resultId: string | null, note: string | null, now: string): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('operation_items')
      .set({ status, result_id: resultId, note, processed_at: now })
      .where('operation_id', '=', item.operation_id)
      .where('item_index', '=', item.item_index)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'operations');
    return true;
  }

  async addCounts(tx: StoreTx, operationId: string, counts: { done: number; failed: number; skipped: number }, now: string): Promise<void> {
    markChange(tx, 'operations');
    await executorOf(tx)
      .updateTable('operations')
      .set((eb) => ({
        done: eb('done', '+', counts.done),
        failed: eb('failed', '+', counts.failed),
        skipped: eb('skipped', '+', counts.skipped),
        updated_at: now,
      }))
      .where('operation_id', '=', operationId)
      .execute();
  }

  /** Moves a running operation to a final status; false when it was not running. */
  async finish(tx: StoreTx, operationId: string, status: 'completed' | 'cancelled' | 'failed', now: string, extra: { cancelled_by_token_id?: string; error?: string } = {}): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('operations')
      .set({ status, finished_at: now, updated_at: now, ...extra })
      .where('operation_id', '=', operationId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'operations');
    return true;
  }

  /** Cancels every running operation (a reset); returns how many. */
  async cancelAllRunning(tx: StoreTx, actorTokenId: string, now: string): Promise<number> {
    const res = await executorOf(tx)
      .updateTable('operations')
      .set({ status: 'cancelled', finished_at: now, updated_at: now, cancelled_by_token_id: actorTokenId, error: 'cancelled by a runtime reset' })
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) markChange(tx, 'operations');
    return Number(res.numUpdatedRows);
  }

  /**
   * What became of the deliveries each operation created (redrive items' deliveries, or the
   * replayed events' deliveries), by status: one grouped query per kind, whatever the page size.
   */
  async outcomes(operations: Pick<OperationRow, 'operation_id' | 'kind'>[]): Promise<Map<string, Record<string, number>>> {
    const out = new Map<string, Record<string, number>>(operations.map((o) => [o.operation_id, {}]));
    for (const kind of ['redrive', 'replay'] as const) {
      const ids = operations.filter((o) => o.kind === kind).map((o) => o.operation_id);
      if (ids.length === 0) continue;
      const rows = await this.db
        .selectFrom('operation_items as i')
        .innerJoin('deliveries as d', kind === 'redrive' ? 'd.delivery_id' : 'd.event_id', 'i.result_id')
        .select(['i.operation_id', 'd.status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('i.operation_id', 'in', ids)
        .groupBy(['i.operation_id', 'd.status'])
        .execute();
      for (const r of rows) out.get(r.operation_id)![r.status] = Number(r.n);
    }
    return out;
  }

  /** The dead letter a redrive item sends again, with the failed delivery's subscriber type and attempts. */
  redriveSource(tx: StoreTx, deadLetterId: string): Promise<RedriveSource | undefined> {
    return executorOf(tx)
      .selectFrom('dead_letters as l')
      .innerJoin('events as e', 'e.event_id', 'l.event_id')
      .leftJoin('deliveries as d', 'd.delivery_id', 'l.delivery_id')
      .select([
        'l.dead_letter_id',
        'l.redriven_at',
        'l.event_id',
        'e.event_name',
        'l.event_seq',
        'l.event_created_at',
        'l.run_id',
        'l.subscriber_id',
        'd.subscriber_type',
        'd.max_attempts',
      ])
      .where('l.dead_letter_id', '=', deadLetterId)
      .executeTakeFirst();
  }

  /** The event a replay item publishes again. */
  replaySource(tx: StoreTx, eventId: string): Promise<{ event_id: string; event_name: string; payload: string; entity_id: string | null } | undefined> {
    return executorOf(tx).selectFrom('events').select(['event_id', 'event_name', 'payload', 'entity_id']).where('event_id', '=', eventId).executeTakeFirst();
  }

  /**
   * Sends a dead letter again: a new pending delivery linked to it, the dead letter marked redriven
   * (only once: false when it already was), and its settled run reopened.
   */
  async redrive(
    tx: StoreTx,
    source: RedriveSource & { subscriber_id: string; subscriber_type: string },
    write: { delivery_id: string; max_attempts: number; operation_id: string; actor_token_id: string; now: string },
  ): Promise<boolean> {
    const marked = await executorOf(tx)
      .updateTable('dead_letters')
      .set({ redriven_at: write.now, redriven_by_token_id: write.actor_token_id, redrive_operation_id: write.operation_id, redrive_delivery_id: write.delivery_id })
      .where('dead_letter_id', '=', source.dead_letter_id)
      .where('redriven_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) return false;
    markChange(tx, 'deliveries');
    markChange(tx, CLAIMABLE);
    await executorOf(tx)
      .insertInto('deliveries')
      .values({
        delivery_id: write.delivery_id,
        event_id: source.event_id,
        event_seq: source.event_seq,
        event_created_at: source.event_created_at,
        run_id: source.run_id,
        subscriber_id: source.subscriber_id,
        subscriber_type: source.subscriber_type,
        status: 'pending',
        attempts: 0,
        max_attempts: write.max_attempts,
        next_attempt_at: write.now,
        lease_owner: null,
        lease_expires_at: null,
        last_error: null,
        reason_code: null,
        session_id: null,
        created_at: write.now,
        updated_at: write.now,
        redrive_of_dead_letter_id: source.dead_letter_id,
      })
      .execute();
    if (source.run_id) {
      await executorOf(tx)
        .updateTable('runs')
        .set({ status: 'running', settled_at: null })
        .where('run_id', '=', source.run_id)
        .where('status', 'in', ['completed', 'failed'])
        .execute();
    }
    return true;
  }
}
