import { sql, type Expression, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import type { Database, OperationItemsTable, OperationsTable } from '../schema';
import { unindexedText } from '../unindexed-text';
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

/** A new operation's row, before any item is sent. */
export type NewOperation = Omit<Insertable<OperationsTable>, 'done' | 'failed' | 'skipped' | 'finished_at' | 'cancelled_by_token_id' | 'error' | 'lease_owner' | 'lease_epoch' | 'lease_expires_at'>;

/** A lease on an operation: its writes count only while (operation, owner, epoch) still hold it. */
export interface OperationLease {
  operation_id: string;
  owner: string;
  epoch: number;
}

/** Sent items whose deliveries settled in one pass, by outcome. */
export interface SettledOutcomes {
  delivered: number;
  dead_lettered: number;
  cancelled: number;
}

/** Statuses in which an operation still sends (running) or may again (paused). */
const UNFINISHED = ['running', 'paused'];

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
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

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
        const c = [...eventConditionsOf(eb, eventFilter, null, this.engine), ...timeBounds('l.event_created_at', selection)];
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
        const c = [...eventConditionsOf(eb, selection, null, this.engine), ...timeBounds('e.created_at', selection)];
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

  /**
   * Writes the operation and one pending item per target, in order. With `lease`, the operation is
   * created already leased to that server (epoch 1): the applying server sends it.
   */
  async create(tx: StoreTx, op: NewOperation, targets: string[], lease?: { owner: string; leaseMs: number }): Promise<void> {
    markChange(tx, 'operations');
    await executorOf(tx)
      .insertInto('operations')
      .values({
        ...op,
        done: 0,
        failed: 0,
        skipped: 0,
        finished_at: null,
        cancelled_by_token_id: null,
        error: null,
        ...(lease ? { lease_owner: lease.owner, lease_epoch: 1, lease_expires_at: this.engine.now(lease.leaseMs) } : {}),
      })
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
  items(operationId: string, limit: number): Promise<OperationItemRow[]> {
    // The event recorded when the item was sent; before that, the dead letter's (redrive, while it
    // exists) or the target itself (replay).
    return this.db
      .selectFrom('operation_items as i')
      .innerJoin('operations as o', 'o.operation_id', 'i.operation_id')
      .leftJoin('dead_letters as l', 'l.dead_letter_id', 'i.target_id')
      .selectAll('i')
      .select(sql<string | null>`coalesce(i.event_id, l.event_id, case when o.kind = 'replay' then i.target_id end)`.as('event_id'))
      .where('i.operation_id', '=', operationId)
      .orderBy('i.item_index')
      .limit(limit)
      .execute();
  }

  /** True when the operation's lease is held by no live server: its owner is none, dead, or its lease expired. */
  private unheld(eb: ExpressionBuilder<Database, 'operations'>, deadAfterMs: number): Expression<SqlBool> {
    return eb.or([
      eb('lease_owner', 'is', null),
      eb('lease_expires_at', '<=', this.engine.now()),
      eb.not(
        eb.exists(
          eb
            .selectFrom('servers')
            .select(sql`1`.as('one'))
            .whereRef('servers.server_id', '=', 'operations.lease_owner')
            .where('servers.last_seen_at', '>', this.engine.now(-deadAfterMs)),
        ),
      ),
    ]);
  }

  /** Running operations no live server holds (their owner died, or its lease expired), oldest first. */
  async claimable(deadAfterMs: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('operations')
      .select('operation_id')
      .where('status', '=', 'running')
      .where((eb) => this.unheld(eb, deadAfterMs))
      .orderBy('created_at')
      .execute();
    return rows.map((r) => r.operation_id);
  }

  /**
   * Takes a running operation for `owner` when no live server holds it: one conditional update that
   * bumps the epoch, so the previous holder's writes are fenced off. The new epoch, or undefined
   * when it is held (or not running).
   */
  async claim(operationId: string, owner: string, leaseMs: number, deadAfterMs: number): Promise<number | undefined> {
    const row = await this.db
      .updateTable('operations')
      .set((eb) => ({ lease_owner: owner, lease_epoch: eb('lease_epoch', '+', 1), lease_expires_at: this.engine.now(leaseMs) }))
      .where('operation_id', '=', operationId)
      .where('status', '=', 'running')
      .where((eb) => eb.or([eb('lease_owner', '=', owner), this.unheld(eb, deadAfterMs)]))
      .returning('lease_epoch')
      .executeTakeFirst();
    return row ? Number(row.lease_epoch) : undefined;
  }

  /**
   * The fence: extends the lease while (operation, owner, epoch) still holds it and the operation
   * runs. A sender calls it first in each batch's transaction; false means the lease was lost (or
   * the operation cancelled or paused) and the transaction must write nothing.
   */
  async renew(lease: OperationLease, leaseMs: number, tx?: StoreTx): Promise<boolean> {
    const res = await (tx ? executorOf(tx) : this.db)
      .updateTable('operations')
      .set({ lease_expires_at: this.engine.now(leaseMs) })
      .where('operation_id', '=', lease.operation_id)
      .where('lease_owner', '=', lease.owner)
      .where('lease_epoch', '=', lease.epoch)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives up a lease (a clean stop): another server may claim the operation at once. */
  async release(lease: OperationLease): Promise<void> {
    await this.db
      .updateTable('operations')
      .set({ lease_owner: null, lease_expires_at: null })
      .where('operation_id', '=', lease.operation_id)
      .where('lease_owner', '=', lease.owner)
      .where('lease_epoch', '=', lease.epoch)
      .execute();
  }

  /** Operations no longer sending whose sent items still wait for their deliveries to settle. */
  async unsettled(): Promise<Pick<OperationRow, 'operation_id' | 'kind'>[]> {
    return this.db
      .selectFrom('operations')
      .select(['operation_id', 'kind'])
      .where('status', '<>', 'running')
      .where('outcome_pending', '>', 0)
      .where('records_removed_at', 'is', null)
      .execute();
  }

  /** Every operation with sent items not settled yet (a reset settles them before removing deliveries). */
  async allUnsettled(tx: StoreTx): Promise<Pick<OperationRow, 'operation_id' | 'kind'>[]> {
    return executorOf(tx).selectFrom('operations').select(['operation_id', 'kind']).where('outcome_pending', '>', 0).where('records_removed_at', 'is', null).execute();
  }

  /**
   * Records, on each sent item whose deliveries have settled, what became of them (a redrive's
   * one delivery; a replayed event's deliveries: dead-lettered if any was, cancelled if any was,
   * else delivered), and adds them to the operation's summary in the same transaction. Each item
   * is recorded once (only while its outcome is null), so passes on several servers add up exactly.
   */
  async settle(tx: StoreTx, op: Pick<OperationRow, 'operation_id' | 'kind'>, nowIso: string): Promise<SettledOutcomes> {
    const db = executorOf(tx);
    const deliveryOf = (eb: ExpressionBuilder<Database, 'operation_items'>, statuses: string[]) => {
      let q = eb.selectFrom('deliveries as d').select(sql`1`.as('one'));
      q = op.kind === 'redrive' ? q.whereRef('d.delivery_id', '=', 'operation_items.result_id') : q.whereRef('d.event_id', '=', 'operation_items.result_id');
      // Found by the item's event or delivery id; by status, SQLite would walk every delivered one.
      return eb.exists(q.where(unindexedText('d.status'), 'in', statuses));
    };
    const mark = async (outcome: 'delivered' | 'dead_lettered' | 'cancelled', when: (eb: ExpressionBuilder<Database, 'operation_items'>) => Expression<SqlBool>) => {
      const res = await db
        .updateTable('operation_items')
        .set({ outcome, settled_at: nowIso })
        .where('operation_id', '=', op.operation_id)
        .where('status', '=', 'done')
        .where('outcome', 'is', null)
        .where(when)
        .executeTakeFirst();
      return Number(res.numUpdatedRows);
    };
    const settled: SettledOutcomes =
      op.kind === 'redrive'
        ? {
            delivered: await mark('delivered', (eb) => deliveryOf(eb, ['delivered'])),
            dead_lettered: await mark('dead_lettered', (eb) => deliveryOf(eb, ['failed'])),
            cancelled: await mark('cancelled', (eb) => deliveryOf(eb, ['cancelled'])),
          }
        : {
            dead_lettered: await mark('dead_lettered', (eb) => eb.and([deliveryOf(eb, ['failed']), eb.not(deliveryOf(eb, ['pending', 'in_progress']))])),
            cancelled: await mark('cancelled', (eb) => eb.and([deliveryOf(eb, ['cancelled']), eb.not(deliveryOf(eb, ['pending', 'in_progress', 'failed']))])),
            delivered: await mark('delivered', (eb) => eb.not(deliveryOf(eb, ['pending', 'in_progress', 'failed', 'cancelled']))),
          };
    const n = settled.delivered + settled.dead_lettered + settled.cancelled;
    if (n > 0) {
      markChange(tx, 'operations');
      await db
        .updateTable('operations')
        .set((eb) => ({
          delivered: eb('delivered', '+', settled.delivered),
          dead_lettered: eb('dead_lettered', '+', settled.dead_lettered),
          outcome_cancelled: eb('outcome_cancelled', '+', settled.cancelled),
          outcome_pending: eb('outcome_pending', '-', n),
          // An operation finished before outcomes were recorded (migration 014) may learn of a re-failure now.
          status: sql<string>`case when status = 'completed' and failed + dead_lettered + ${settled.dead_lettered} > 0 then 'completed_with_failures' else status end`,
          updated_at: nowIso,
        }))
        .where('operation_id', '=', op.operation_id)
        .execute();
    }
    return settled;
  }

  /**
   * Ends a running operation whose items are all sent and settled: `completed` when nothing failed
   * or dead-lettered again, else `completed_with_failures`. False while anything is outstanding.
   */
  async finishIfSettled(tx: StoreTx, operationId: string, nowIso: string): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('operations')
      .set({
        status: sql<string>`case when failed + dead_lettered > 0 then 'completed_with_failures' else 'completed' end`,
        finished_at: nowIso,
        updated_at: nowIso,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('operation_id', '=', operationId)
      .where('status', '=', 'running')
      .where(sql<SqlBool>`done + failed + skipped = total`)
      .where('outcome_pending', '=', 0)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'operations');
    return true;
  }

  /** An operation's kind and counts when it finished with failures (read in the transaction that finished it). */
  async finishedWithFailures(tx: StoreTx, operationId: string): Promise<{ operation_id: string; kind: string; failed: number; dead_lettered: number; total: number } | undefined> {
    const row = await executorOf(tx)
      .selectFrom('operations')
      .select(['operation_id', 'kind', 'failed', 'dead_lettered', 'total'])
      .where('operation_id', '=', operationId)
      .where('status', '=', 'completed_with_failures')
      .executeTakeFirst();
    return row && { operation_id: row.operation_id, kind: row.kind, failed: Number(row.failed), dead_lettered: Number(row.dead_lettered), total: Number(row.total) };
  }

  /** Pauses a running operation with items left to send once its re-failures reach stop_after_failures. */
  async pauseIfFailing(tx: StoreTx, operationId: string, nowIso: string): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('operations')
      .set({ status: 'paused', updated_at: nowIso, lease_owner: null, lease_expires_at: null })
      .where('operation_id', '=', operationId)
      .where('status', '=', 'running')
      .where('stop_after_failures', 'is not', null)
      .where(sql<SqlBool>`failed + dead_lettered >= stop_after_failures`)
      .where(sql<SqlBool>`done + failed + skipped < total`)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'operations');
    return true;
  }

  /** A reset removed the records the operations created: they say so, and their outcomes stay as last recorded. */
  async markRecordsRemoved(tx: StoreTx, nowIso: string): Promise<number> {
    const res = await executorOf(tx).updateTable('operations').set({ records_removed_at: nowIso }).where('records_removed_at', 'is', null).where('done', '>', 0).executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) markChange(tx, 'operations');
    return Number(res.numUpdatedRows);
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
  async finishItem(
    tx: StoreTx,
    item: { operation_id: string; item_index: number },
    status: 'done' | 'failed' | 'skipped',
    resultId: string | null,
    note: string | null,
    now: string,
    eventId: string | null = null,
  ): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('operation_items')
      .set({ status, result_id: resultId, note, processed_at: now, ...(eventId ? { event_id: eventId } : {}) })
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
        // A sent item waits for its deliveries to settle.
        outcome_pending: eb('outcome_pending', '+', counts.done),
        updated_at: now,
      }))
      .where('operation_id', '=', operationId)
      .execute();
  }

  /** Moves a running (or paused) operation to a final status; false when it was neither. */
  async finish(tx: StoreTx, operationId: string, status: 'completed' | 'cancelled' | 'failed', now: string, extra: { cancelled_by_token_id?: string; error?: string } = {}): Promise<boolean> {
    const res = await executorOf(tx)
      .updateTable('operations')
      .set({ status, finished_at: now, updated_at: now, ...extra })
      .where('operation_id', '=', operationId)
      .where('status', 'in', UNFINISHED)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'operations');
    return true;
  }

  /** Cancels every running or paused operation (a reset); returns how many. */
  async cancelAllRunning(tx: StoreTx, actorTokenId: string, now: string): Promise<number> {
    const res = await executorOf(tx)
      .updateTable('operations')
      .set({ status: 'cancelled', finished_at: now, updated_at: now, cancelled_by_token_id: actorTokenId, error: 'cancelled by a runtime reset' })
      .where('status', 'in', UNFINISHED)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) > 0) markChange(tx, 'operations');
    return Number(res.numUpdatedRows);
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
