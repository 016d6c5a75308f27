/**
 * Mailbox writes: items opened with their history, decisions as conditional updates (only a
 * pending item is decided, so of two concurrent decisions one wins) with their history entries,
 * and per-person approvals counted under the item's row lock (see countApproval).
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, MailboxApprovalsTable, MailboxHistoryTable, MailboxItemsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';
import type { MailboxItemRow } from './mailbox-reads';
export type NewMailboxItemRow = Omit<Insertable<MailboxItemsTable>, 'seq'>;
export type NewMailboxHistoryRow = Omit<Insertable<MailboxHistoryTable>, 'seq'>;
export type MailboxApprovalRow = Selectable<MailboxApprovalsTable>;

export class MailboxDecisionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Opens an item with its first history entry. */
  async open(tx: StoreTx, item: NewMailboxItemRow, created: NewMailboxHistoryRow): Promise<void> {
    const trx = executorOf(tx);
    markChange(tx, 'mailbox');
    await trx.insertInto('mailbox_items').values(item).execute();
    await trx.insertInto('mailbox_history').values(created).execute();
  }

  item(mailboxId: string, tx?: StoreTx): Promise<MailboxItemRow | undefined> {
    return (tx ? executorOf(tx) : this.db).selectFrom('mailbox_items').selectAll().where('mailbox_id', '=', mailboxId).executeTakeFirst();
  }

  /** Applies a decision to a pending item; false when it is no longer pending. */
  async decide(tx: StoreTx, mailboxId: string, decision: Updateable<MailboxItemsTable>): Promise<boolean> {
    const res = await executorOf(tx).updateTable('mailbox_items').set(decision).where('mailbox_id', '=', mailboxId).where('status', '=', 'pending').executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    markChange(tx, 'mailbox');
    return true;
  }

  async addHistory(tx: StoreTx, entry: NewMailboxHistoryRow): Promise<void> {
    markChange(tx, 'mailbox');
    await executorOf(tx).insertInto('mailbox_history').values(entry).execute();
  }

  /** Pending items of a type, by source entity, newest first. */
  pendingOfType(type: string): Promise<Pick<MailboxItemRow, 'mailbox_id' | 'payload' | 'source_entity_id'>[]> {
    return this.db
      .selectFrom('mailbox_items')
      .select(['mailbox_id', 'payload', 'source_entity_id'])
      .where('status', '=', 'pending')
      .where('type', '=', type)
      .orderBy('source_entity_id', 'desc')
      .execute();
  }

  async setEmittedEvent(tx: StoreTx, mailboxId: string, eventId: string): Promise<void> {
    markChange(tx, 'mailbox');
    await executorOf(tx).updateTable('mailbox_items').set({ emitted_event_id: eventId }).where('mailbox_id', '=', mailboxId).execute();
  }

  /**
   * Counts one more approval of a pending item and returns the new count; undefined when the item
   * is no longer pending. The conditional UPDATE takes the item's row lock until the transaction
   * ends: a concurrent approval (on any server) waits, then counts on top of this one's committed
   * count, or finds the item decided. So exactly one approval sees the count reach what the type
   * requires, and everything read after this call sees the other approvals already committed.
   */
  async countApproval(tx: StoreTx, mailboxId: string): Promise<number | undefined> {
    const row = await executorOf(tx)
      .updateTable('mailbox_items')
      .set((eb) => ({ approvals_count: eb('approvals_count', '+', 1) }))
      .where('mailbox_id', '=', mailboxId)
      .where('status', '=', 'pending')
      .returning('approvals_count')
      .executeTakeFirst();
    if (!row) return undefined;
    markChange(tx, 'mailbox');
    return Number(row.approvals_count);
  }

  async addApproval(tx: StoreTx, approval: MailboxApprovalRow): Promise<void> {
    markChange(tx, 'mailbox');
    await executorOf(tx).insertInto('mailbox_approvals').values(approval).execute();
  }

  /** An item's approvals so far, oldest first. */
  approvals(mailboxId: string, tx?: StoreTx): Promise<MailboxApprovalRow[]> {
    return (tx ? executorOf(tx) : this.db)
      .selectFrom('mailbox_approvals')
      .selectAll()
      .where('mailbox_id', '=', mailboxId)
      .orderBy('approved_at')
      .orderBy('user_id')
      .execute();
  }

  /** The person whose publish started a run; null when unknown. */
  async runStartedBy(runId: string, tx?: StoreTx): Promise<string | null> {
    const row = await (tx ? executorOf(tx) : this.db).selectFrom('runs').select('started_by_user_id').where('run_id', '=', runId).executeTakeFirst();
    return row?.started_by_user_id ?? null;
  }
}
