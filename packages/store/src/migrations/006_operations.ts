import type { Kysely } from 'kysely';

/**
 * Redrive and replay (issue 12): durable background operations with one row per item they act on,
 * and the lineage columns that link a redriven dead letter, the delivery that redrove it and a
 * replayed event to what it replays.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['redriven_at', 'redriven_by_token_id', 'redrive_operation_id', 'redrive_delivery_id']) {
    await db.schema.alterTable('dead_letters').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('deliveries').addColumn('redrive_of_dead_letter_id', 'text').execute();
  await db.schema.alterTable('events').addColumn('replay_of_event_id', 'text').execute();
  await db.schema
    .createTable('operations')
    .addColumn('operation_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('selection', 'text', (c) => c.notNull())
    .addColumn('plan_hash', 'text', (c) => c.notNull())
    .addColumn('rate_per_second', 'real', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addColumn('actor_token_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('cancelled_by_token_id', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('operations_created').on('operations').columns(['created_at', 'operation_id']).execute();
  await db.schema
    .createTable('operation_items')
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('item_index', 'integer', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('result_id', 'text')
    .addColumn('note', 'text')
    .addColumn('processed_at', 'text')
    .addPrimaryKeyConstraint('operation_items_pk', ['operation_id', 'item_index'])
    .execute();
  await db.schema.createIndex('operation_items_status').on('operation_items').columns(['operation_id', 'status', 'item_index']).execute();
  await db.schema.createIndex('operation_items_result').on('operation_items').columns(['result_id']).execute();
  await db.schema.createIndex('deliveries_redrive_of').on('deliveries').columns(['redrive_of_dead_letter_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operation_items').execute();
  await db.schema.dropTable('operations').execute();
}
