import { sql, type Kysely } from 'kysely';

/**
 * Issue 39, retention (ADR 0018). `retention_runs` records each prune (or its preview): when, on
 * which server, the cut-offs it used and the rows it removed per kind. `retention_lease` is one
 * row: the server pruning now holds it (an epoch-fenced lease, like an operation's), so on a shared
 * database one server at a time prunes, across the many short transactions of a pass.
 * `audit_head` learns where a pruned chain now starts, so a chain whose oldest records were removed
 * still verifies from that point. The indexes are the walks a prune makes: settled runs by age, and
 * a run's log records, turns, pending mailbox items and the unfinished operations that target it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('retention_runs')
    .addColumn('retention_run_id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('dry_run', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('server_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('cutoffs', 'text', (c) => c.notNull())
    .addColumn('removed', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('retention_runs_started').on('retention_runs').columns(['started_at']).execute();
  await db.schema
    .createTable('retention_lease')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('owner', 'text')
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .execute();
  await sql`insert into retention_lease (id, owner, epoch, expires_at) values (1, null, 0, null)`.execute(db);
  await db.schema.alterTable('audit_head').addColumn('pruned_through_seq', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('audit_head').addColumn('pruned_through_hash', 'text', (c) => c.notNull().defaultTo('0'.repeat(64))).execute();
  await db.schema.createIndex('runs_settled').on('runs').columns(['settled_at', 'run_id']).execute();
  await db.schema.createIndex('logs_run').on('logs').columns(['run_id']).execute();
  await db.schema.createIndex('turns_trigger_event').on('turns').columns(['trigger_event_id']).execute();
  await db.schema.createIndex('mailbox_run').on('mailbox_items').columns(['run_id', 'status']).execute();
  await db.schema.createIndex('operation_items_target').on('operation_items').columns(['target_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['operation_items_target', 'mailbox_run', 'turns_trigger_event', 'logs_run', 'runs_settled']) await db.schema.dropIndex(index).execute();
  await db.schema.alterTable('audit_head').dropColumn('pruned_through_hash').execute();
  await db.schema.alterTable('audit_head').dropColumn('pruned_through_seq').execute();
  await db.schema.dropTable('retention_lease').execute();
  await db.schema.dropIndex('retention_runs_started').execute();
  await db.schema.dropTable('retention_runs').execute();
}
