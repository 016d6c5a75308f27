import type { Kysely } from 'kysely';
import { rebuildIncidentRollup } from '../repositories/logs';

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
  await rebuildIncidentRollup(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('incident_hours').execute();
}
