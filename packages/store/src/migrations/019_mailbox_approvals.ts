import type { Kysely } from 'kysely';

/**
 * Issue 37, the two-person rule. A mailbox type may need several distinct approvals: each is a
 * row of `mailbox_approvals` (one per person and item), and `mailbox_items.approvals_count` is
 * the counter every approval increments with a conditional UPDATE while the item is pending. That
 * UPDATE takes the item's row lock, so approvals of one item on different nodes go one after the
 * other and exactly one of them sees the last count. `runs.started_by_user_id` is the person whose
 * publish started the run (null for runs started before this, or by the runtime), who may not
 * approve its items.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mailbox_items').addColumn('approvals_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('runs').addColumn('started_by_user_id', 'text').execute();
  await db.schema
    .createTable('mailbox_approvals')
    .addColumn('mailbox_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('approved_at', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('override_note', 'text')
    .addPrimaryKeyConstraint('mailbox_approvals_pk', ['mailbox_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mailbox_approvals').execute();
  await db.schema.alterTable('runs').dropColumn('started_by_user_id').execute();
  await db.schema.alterTable('mailbox_items').dropColumn('approvals_count').execute();
}
