import { sql, type Kysely } from 'kysely';

/**
 * Issue 40: "node" meant both a flow node and a server process; the server process is now a
 * "server" (ADR 0017). The heartbeat table and the columns naming a server process are renamed,
 * on both engines (SQLite renames columns and tables in place since 3.25), and stored alert rules
 * and notices that said `node.dead` say `server.dead`. The audit hash still covers the record under
 * its first key, `node_id`, so chains written before this verify unchanged.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('nodes_last_seen').execute();
  await db.schema.alterTable('nodes').renameTo('servers').execute();
  await db.schema.alterTable('servers').renameColumn('node_id', 'server_id').execute();
  await db.schema.createIndex('servers_last_seen').on('servers').columns(['last_seen_at']).execute();
  for (const table of ['idempotency', 'changes', 'audit']) await db.schema.alterTable(table).renameColumn('node_id', 'server_id').execute();
  await db.updateTable('alert_rules').set({ trigger: 'server.dead' }).where('trigger', '=', 'node.dead').execute();
  await db
    .updateTable('alert_notices')
    .set({ transition: sql`case when transition = 'node.dead' then 'server.dead' else transition end`, subject_type: 'server', link: sql`replace(link, '#nodes', '#servers')` })
    .where('subject_type', '=', 'node')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db
    .updateTable('alert_notices')
    .set({ transition: sql`case when transition = 'server.dead' then 'node.dead' else transition end`, subject_type: 'node', link: sql`replace(link, '#servers', '#nodes')` })
    .where('subject_type', '=', 'server')
    .execute();
  await db.updateTable('alert_rules').set({ trigger: 'node.dead' }).where('trigger', '=', 'server.dead').execute();
  for (const table of ['audit', 'changes', 'idempotency']) await db.schema.alterTable(table).renameColumn('server_id', 'node_id').execute();
  await db.schema.dropIndex('servers_last_seen').execute();
  await db.schema.alterTable('servers').renameColumn('server_id', 'node_id').execute();
  await db.schema.alterTable('servers').renameTo('nodes').execute();
  await db.schema.createIndex('nodes_last_seen').on('nodes').columns(['last_seen_at']).execute();
}
