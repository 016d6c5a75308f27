/**
 * The notice outbox (migration 020). A notice is inserted in the transaction of the transition
 * that caused it, once per dedupe key; a sender claims due notices with a lease and records each
 * attempt's outcome under that lease, so a server that lost its lease (it stalled, another server
 * took the notice over) changes nothing.
 */
import type { Kysely } from 'kysely';
import type { ChangeFeedRepository } from '../change-feed';
import type { StoreEngine } from '../engines/engine';
import type { AlertNoticesTable, Database } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';

export type AlertNoticeRecord = AlertNoticesTable;

export interface AlertNoticeFilter {
  ruleId?: string;
  destinationId?: string;
  status?: string;
  subjectId?: string;
  since?: string;
}

/** Where a notices page ended: notices are listed newest first by (created_at, id). */
export interface AlertNoticePosition {
  created_at: string;
  id: string;
}

export interface AlertNoticePage {
  notices: AlertNoticeRecord[];
  /** The last notice's position, when more notices follow. */
  next?: AlertNoticePosition;
}

export class AlertNoticeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
    private readonly engine: StoreEngine,
  ) {}

  private on(tx?: StoreTx): Kysely<Database> {
    return tx ? executorOf(tx) : this.db;
  }

  /** Inserts notices, skipping any whose dedupe key exists; the ids inserted. */
  async insert(notices: readonly AlertNoticeRecord[], tx?: StoreTx): Promise<string[]> {
    if (notices.length === 0) return [];
    return this.changes.write('alerts', tx, async (trx) => {
      const rows = await trx
        .insertInto('alert_notices')
        .values([...notices])
        .onConflict((oc) => oc.column('dedupe_key').doNothing())
        .returning('id')
        .execute();
      return rows.map((r) => r.id);
    });
  }

  async get(id: string, tx?: StoreTx): Promise<AlertNoticeRecord | undefined> {
    return this.on(tx).selectFrom('alert_notices').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first, after `after` when given; at most `limit`. */
  async page(filter: AlertNoticeFilter, options: { limit: number; after?: AlertNoticePosition }): Promise<AlertNoticePage> {
    const { limit, after } = options;
    let q = this.db.selectFrom('alert_notices').selectAll();
    if (filter.ruleId !== undefined) q = q.where('rule_id', '=', filter.ruleId);
    if (filter.destinationId !== undefined) q = q.where('destination_id', '=', filter.destinationId);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    if (filter.subjectId !== undefined) q = q.where('subject_id', '=', filter.subjectId);
    if (filter.since !== undefined) q = q.where('created_at', '>=', filter.since);
    if (after) {
      q = q.where((eb) => eb.or([eb('created_at', '<', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)])]));
    }
    // One more than the page: whether a next page exists without a count.
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    const notices = rows.slice(0, limit);
    const last = notices[notices.length - 1];
    return rows.length > limit && last ? { notices, next: { created_at: last.created_at, id: last.id } } : { notices };
  }

  /** A failed notice back to pending, due now, with its id and attempts kept; undefined when it is not failed. */
  async resend(id: string, now: string, tx: StoreTx): Promise<AlertNoticeRecord | undefined> {
    return this.changes.write('alerts', tx, async (trx) => {
      const res = await trx
        .updateTable('alert_notices')
        .set({ status: 'pending', next_attempt_at: now, lease_owner: null, lease_until: null })
        .where('id', '=', id)
        .where('status', '=', 'failed')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return undefined;
      return trx.selectFrom('alert_notices').selectAll().where('id', '=', id).executeTakeFirst();
    });
  }

  /**
   * Leases up to `limit` due notices to `owner` until `leaseUntil`: pending, due by `now`, and
   * not leased or with a lapsed lease. On PostgreSQL rows another server is claiming are skipped.
   */
  async claimDue(owner: string, now: string, leaseUntil: string, limit: number): Promise<AlertNoticeRecord[]> {
    const due = this.db
      .selectFrom('alert_notices')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy('next_attempt_at')
      .limit(limit);
    const claimable = this.engine.skippingLockedRows(due);
    return this.db
      .updateTable('alert_notices')
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where('id', 'in', claimable)
      .where('status', '=', 'pending')
      .returningAll()
      .execute();
  }

  /**
   * Drops every notice lease (SQLite at boot: only this process can have the store open, so a
   * lease is a killed process's, and its notices can be sent again at once).
   */
  async releaseAllLeases(): Promise<number> {
    const res = await this.db.updateTable('alert_notices').set({ lease_owner: null, lease_until: null }).where('status', '=', 'pending').where('lease_owner', 'is not', null).executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** The earliest next attempt of a pending notice (when the sender should look again). */
  async nextDueAt(): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('alert_notices')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return (row?.at as string | null | undefined) ?? undefined;
  }

  /** Records a delivered attempt under the caller's lease; false when the lease was lost. */
  async delivered(id: string, owner: string, now: string, attempts: number): Promise<boolean> {
    return this.finishAttempt(id, owner, { status: 'delivered', attempts, delivered_at: now, next_attempt_at: null, last_error: null });
  }

  /** Records a failed attempt: due again at `nextAttemptAt`, or failed for good when that is null. */
  async attemptFailed(id: string, owner: string, attempts: number, error: string, nextAttemptAt: string | null): Promise<boolean> {
    return this.finishAttempt(id, owner, { status: nextAttemptAt ? 'pending' : 'failed', attempts, last_error: error.slice(0, 1000), next_attempt_at: nextAttemptAt });
  }

  private async finishAttempt(id: string, owner: string, set: Partial<AlertNoticeRecord>): Promise<boolean> {
    return this.changes.write('alerts', undefined, async (trx) => {
      const res = await trx
        .updateTable('alert_notices')
        .set({ ...set, lease_owner: null, lease_until: null })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    });
  }

  /** Cancels pending notices of a transition about a subject (an escalation whose item was decided). */
  async cancelPending(transition: string, subjectId: string, reason: string, tx?: StoreTx): Promise<number> {
    const res = await this.on(tx)
      .updateTable('alert_notices')
      .set({ status: 'cancelled', next_attempt_at: null, lease_owner: null, lease_until: null, last_error: reason })
      .where('transition', '=', transition)
      .where('subject_id', '=', subjectId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * After a reset deleted the records incidents are made of: their notices no longer block a new
   * notice (dedupe keys cleared) and their conditions start over. In the reset's transaction.
   */
  async forgetIncidentEpisodes(tx: StoreTx): Promise<void> {
    const trx = executorOf(tx);
    await trx.updateTable('alert_notices').set({ dedupe_key: null }).where('subject_type', '=', 'incident').where('dedupe_key', 'is not', null).execute();
    await trx.deleteFrom('alert_conditions').where('subject_key', 'like', 'inc_%').execute();
  }
}
