import type { Kysely } from 'kysely';
import { rebuildIncidentMinutes } from '../repositories/logs';

/**
 * Issue 41: a per-minute incident rollup beside the hourly one. runtime.incidents counted every
 * hour that a window edge or a histogram boundary cuts from the log records themselves (a 7-day
 * window in 24 buckets cuts 25 hours); now only the minutes a cut falls inside are read from the
 * records, and the rest of a cut hour from this table. Kept with each warn-or-worse record, like
 * `incident_hours`, and built from the records here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('incident_minutes')
    .addColumn('minute', 'text', (c) => c.notNull())
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('cause_key', 'text', (c) => c.notNull())
    .addColumn('is_mcp', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('level_rank', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_minutes_pk', ['minute', 'component', 'error_key', 'cause_key'])
    .execute();
  await rebuildIncidentMinutes(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('incident_minutes').execute();
}
