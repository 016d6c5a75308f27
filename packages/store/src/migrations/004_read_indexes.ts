import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the read surface beyond those 002 created with the tables.
 *
 * Incidents group warn-and-above log records inside a look-back window. The partial indexes below
 * hold only those records and lead with the column each query narrows on (the window itself, the
 * MCP flag, or one component), then carry every grouped column, so the grouping query reads the
 * window's index entries and never the table or the (much larger) debug/info history.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const incidentLevel = sql.ref('level_rank');
  await db.schema
    .createIndex('logs_incident_window')
    .on('logs')
    .columns(['ts', 'component', 'error_code', 'level_rank'])
    .where(incidentLevel, '>=', 2)
    .execute();
  await db.schema
    .createIndex('logs_incident_mcp')
    .on('logs')
    .columns(['is_mcp', 'ts', 'component', 'error_code', 'level_rank'])
    .where(incidentLevel, '>=', 2)
    .execute();
  // The latest records of one group (incident samples, runtime.incident_logs): a short walk from the end.
  await db.schema
    .createIndex('logs_incident_group')
    .on('logs')
    .columns(['component', 'error_code', 'ts'])
    .where(incidentLevel, '>=', 2)
    .execute();
  await db.schema
    .createIndex('logs_incident_component')
    .on('logs')
    .columns(['component', 'ts', 'error_code', 'level_rank'])
    .where(incidentLevel, '>=', 2)
    .execute();

  // run.get counts a run's dead letters.
  await db.schema.createIndex('dead_letters_run').on('dead_letters').column('run_id').execute();

  // conversation.list pages newest first, alone or by agent or run.
  await db.schema.createIndex('conversations_page').on('conversations').columns(['started_at', 'seq']).execute();
  await db.schema
    .createIndex('conversations_agent_page')
    .on('conversations')
    .columns(['agent_id', 'started_at', 'seq'])
    .execute();
  await db.schema.createIndex('conversations_run_page').on('conversations').columns(['run_id', 'started_at', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'logs_incident_window',
    'logs_incident_mcp',
    'logs_incident_component',
    'logs_incident_group',
    'dead_letters_run',
    'conversations_page',
    'conversations_agent_page',
    'conversations_run_page',
  ]) {
    await db.schema.dropIndex(name).ifExists().execute();
  }
}
