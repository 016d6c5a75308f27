import type { Kysely } from 'kysely';
import type { AutoIncrementKey } from '../engines/engine';

/**
 * Incident lifecycle (issue 13): the state an operator gave an incident group (acknowledged,
 * resolved, ignored, or open again), and every change, with who made it and an optional note.
 * Keyed by the group (component, error code; '' for none), which is what an incident id encodes.
 */
export function incidentStatesMigration(autoIncrement: AutoIncrementKey) {
  return { up: (db: Kysely<any>) => up(db, autoIncrement), down };
}

async function up(db: Kysely<any>, autoIncrement: AutoIncrementKey): Promise<void> {
  await db.schema
    .createTable('incident_states')
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('actor_token_id', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('ignore_until', 'text')
    .addColumn('ignore_occurrences', 'integer')
    .addPrimaryKeyConstraint('incident_states_pk', ['component', 'error_key'])
    .execute();
  await db.schema
    .createTable('incident_activity')
    .addColumn('seq', autoIncrement.type, autoIncrement.primaryKey)
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('ts', 'text', (c) => c.notNull())
    .addColumn('actor_token_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('ignore_until', 'text')
    .addColumn('ignore_occurrences', 'integer')
    .execute();
  await db.schema.createIndex('incident_activity_group').on('incident_activity').columns(['component', 'error_key', 'seq']).execute();
}

async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('incident_activity').execute();
  await db.schema.dropTable('incident_states').execute();
}
