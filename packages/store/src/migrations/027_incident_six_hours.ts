import type { Kysely } from 'kysely';
import { rebuildIncidentSixHours } from '../repositories/logs';

/**
 * Issue 41: six-hour blocks of the hourly incident rollup. A 30-day window in 24 buckets read about
 * 29 hour rows per bucket and group; a bucket's whole blocks now come from here, four rows where
 * there were twenty-four. Each row sums its block's rows of `incident_hours` (kept with each
 * warn-or-worse record, rebuilt from the hours), built here from the hours.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('incident_six_hours')
    .addColumn('block', 'text', (c) => c.notNull())
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('cause_key', 'text', (c) => c.notNull())
    .addColumn('is_mcp', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('level_rank', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_six_hours_pk', ['block', 'component', 'error_key', 'cause_key'])
    .execute();
  await rebuildIncidentSixHours(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('incident_six_hours').execute();
}
