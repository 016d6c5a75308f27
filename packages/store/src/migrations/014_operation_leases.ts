import { sql, type Kysely } from 'kysely';

/**
 * Issue 36: a redrive or replay operation is sent by one live node at a time, under a lease with a
 * fencing epoch (`lease_owner`, `lease_epoch`, `lease_expires_at`); it may pause itself after
 * `stop_after_failures` re-failures; and what became of its deliveries is stored on its items
 * (`outcome`, `settled_at`, `event_id`) and summed on its row (`delivered`, `dead_lettered`,
 * `outcome_cancelled`, `outcome_pending`) as they settle, so a reset that removes the deliveries
 * (`records_removed_at`) leaves its outcome readable.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('operations').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('operations').addColumn('lease_epoch', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('operations').addColumn('lease_expires_at', 'text').execute();
  await db.schema.alterTable('operations').addColumn('stop_after_failures', 'integer').execute();
  for (const column of ['delivered', 'dead_lettered', 'outcome_cancelled', 'outcome_pending']) {
    await db.schema.alterTable('operations').addColumn(column, 'integer', (c) => c.notNull().defaultTo(0)).execute();
  }
  await db.schema.alterTable('operations').addColumn('records_removed_at', 'text').execute();
  await db.schema.alterTable('operation_items').addColumn('outcome', 'text').execute();
  await db.schema.alterTable('operation_items').addColumn('settled_at', 'text').execute();
  await db.schema.alterTable('operation_items').addColumn('event_id', 'text').execute();
  // Operations sent before this migration: their sent items' outcomes are recorded from the
  // deliveries by the next settle pass.
  await sql`update operations set outcome_pending = done`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['outcome', 'settled_at', 'event_id']) await db.schema.alterTable('operation_items').dropColumn(column).execute();
  for (const column of ['lease_owner', 'lease_epoch', 'lease_expires_at', 'stop_after_failures', 'delivered', 'dead_lettered', 'outcome_cancelled', 'outcome_pending', 'records_removed_at']) {
    await db.schema.alterTable('operations').dropColumn(column).execute();
  }
}
