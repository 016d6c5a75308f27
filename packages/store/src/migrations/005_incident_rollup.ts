import { sql, type Kysely } from 'kysely';

/**
 * An hourly rollup of warn-or-worse log records per (component, error code), kept with every log
 * write, so runtime.incidents over days reads a few rows per hour instead of every record.
 * `error_key` is the error code, or '' for none (a primary key column cannot be null).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('incident_hours')
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('is_mcp', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('level_rank', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_hours_pk', ['hour', 'component', 'error_key'])
    .execute();
  await db.schema.createIndex('incident_hours_component').on('incident_hours').columns(['component', 'hour']).execute();
  // The rollup as it was keyed here (015 adds the cause and builds it again).
  await sql`
    insert into incident_hours (hour, component, error_key, is_mcp, count, first_seen, last_seen, level_rank)
    select substr(ts, 1, 13), component, coalesce(error_code, ''), max(is_mcp), count(*), min(ts), max(ts), max(level_rank)
    from logs
    where level_rank >= 2
    group by substr(ts, 1, 13), component, coalesce(error_code, '')
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('incident_hours').execute();
}
