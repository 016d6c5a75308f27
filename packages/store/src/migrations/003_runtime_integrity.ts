import { sql, type Kysely } from 'kysely';

/**
 * Integrity and claim-path indexes for the runtime: at most one dead letter per delivery, at most
 * one active session per (agent, scope), and an index for reclaiming expired leases.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('dead_letters_one_per_delivery')
    .on('dead_letters')
    .column('delivery_id')
    .unique()
    .where(sql.ref('delivery_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('conversations_one_active')
    .on('conversations')
    .columns(['agent_id', 'scope_key'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
  await db.schema.createIndex('deliveries_lease').on('deliveries').columns(['status', 'lease_expires_at']).execute();
  await db.schema.createIndex('entities_run').on('entities').columns(['run_id']).execute();
}
