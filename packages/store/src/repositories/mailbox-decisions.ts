/**
 * Mailbox writes: items opened with their history, decisions as conditional updates (only a
 * pending item is decided, so of two concurrent decisions one wins) with their history entries.
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, MailboxHistoryTable, MailboxItemsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';
import type { MailboxItemRow } from './mailbox-reads';
export type NewMailboxItemRow = Omit<Insertable<MailboxItemsTable>, 'seq'>;
export type NewMailboxHistoryRow = Omit<Insertable<MailboxHistoryTable>, 'seq'>;

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
}
