import type { Kysely } from 'kysely';

/**
 * Decisions keep what was seen (issue 13): a decided mailbox item stores the decision sheet as it
 * stood when it was decided and the payload approval emitted; a reject may carry a reason code
 * from the bundle, on the item (for filters) and in its history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['decided_sheet', 'emitted_payload', 'emitted_event_id', 'reason_code']) {
    await db.schema.alterTable('mailbox_items').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('mailbox_history').addColumn('reason_code', 'text').execute();
  await db.schema.createIndex('mailbox_reason_code').on('mailbox_items').columns(['reason_code', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('mailbox_reason_code').execute();
}
