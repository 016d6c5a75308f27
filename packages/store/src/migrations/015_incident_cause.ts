import { sql, type Kysely } from 'kysely';
import { rebuildIncidentHours } from '../repositories/logs';

/**
 * Issue 36: an incident has one cause. A dead letter's record (`dispatcher · DEAD_LETTER`) carried
 * every subscriber and reason in one group; the group key is now (component, error code, cause),
 * where `cause_key` is '' for records without one and, for a dead letter, the JSON text
 * `["<subscriber_id>","<reason_code>"]` (see docs/api-notes.md, "Incident grouping key").
 *
 * Existing data moves with it: dead-letter records get the cause of the dead letter they name; the
 * rollup is rebuilt by the new key; a state an operator gave a group that now splits is given to
 * every cause it splits into, with the group's activity, so an acknowledged incident stays
 * acknowledged. The old row stays for the records whose dead letter is gone (cause '').
 */
const INCIDENT_INDEXES: { name: string; columns: string[] }[] = [
  { name: 'logs_incident_window', columns: ['ts', 'component', 'error_code', 'level_rank'] },
  { name: 'logs_incident_mcp', columns: ['is_mcp', 'ts', 'component', 'error_code', 'level_rank'] },
  { name: 'logs_incident_group', columns: ['component', 'error_code', 'ts'] },
  { name: 'logs_incident_component', columns: ['component', 'ts', 'error_code', 'level_rank'] },
];

/** Where each index carries the error code, it now carries the cause after it (the grouped columns). */
const withCause = (columns: string[]) => columns.flatMap((c) => (c === 'error_code' ? ['error_code', 'cause_key'] : [c]));

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('logs').addColumn('cause_key', 'text', (c) => c.notNull().defaultTo('')).execute();

  // Dead-letter records take the cause of the dead letter they name: one update per (subscriber, reason).
  const pairs = await db
    .selectFrom('logs as l')
    .innerJoin('dead_letters as d', 'd.dead_letter_id', 'l.dead_letter_id')
    .select(['d.subscriber_id', 'd.reason_code'])
    .where('l.error_code', '=', 'DEAD_LETTER')
    .where('d.reason_code', 'is not', null)
    .distinct()
    .execute();
  for (const p of pairs as { subscriber_id: string; reason_code: string }[]) {
    await db
      .updateTable('logs')
      .set({ cause_key: JSON.stringify([p.subscriber_id, p.reason_code]) })
      .where('error_code', '=', 'DEAD_LETTER')
      .where('dead_letter_id', 'in', db.selectFrom('dead_letters').select('dead_letter_id').where('subscriber_id', '=', p.subscriber_id).where('reason_code', '=', p.reason_code))
      .execute();
  }

  for (const index of INCIDENT_INDEXES) {
    await db.schema.dropIndex(index.name).execute();
    await db.schema.createIndex(index.name).on('logs').columns(withCause(index.columns)).where(sql.ref('level_rank'), '>=', 2).execute();
  }

  // The rollup, keyed by the cause too: built again from the records.
  await db.schema.dropTable('incident_hours').execute();
  await db.schema
    .createTable('incident_hours')
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('cause_key', 'text', (c) => c.notNull())
    .addColumn('is_mcp', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addColumn('level_rank', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_hours_cause_pk', ['hour', 'component', 'error_key', 'cause_key'])
    .execute();
  await db.schema.createIndex('incident_hours_component').on('incident_hours').columns(['component', 'hour']).execute();
  await rebuildIncidentHours(db);

  // States: a table with the cause in its key (a primary key cannot be altered on SQLite).
  await db.schema
    .createTable('incident_states_by_cause')
    .addColumn('component', 'text', (c) => c.notNull())
    .addColumn('error_key', 'text', (c) => c.notNull())
    .addColumn('cause_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('actor_token_id', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('ignore_until', 'text')
    .addColumn('ignore_occurrences', 'integer')
    .addPrimaryKeyConstraint('incident_states_cause_pk', ['component', 'error_key', 'cause_key'])
    .execute();
  const causes = db
    .selectFrom('logs')
    .select(['component', sql<string>`coalesce(error_code, '')`.as('error_key'), 'cause_key'])
    .where(sql.ref('level_rank'), '>=', 2)
    .where('cause_key', '<>', '')
    .distinct()
    .as('c');
  const stateColumns = ['state', 'changed_at', 'actor_token_id', 'note', 'ignore_until', 'ignore_occurrences'] as const;
  await db
    .insertInto('incident_states_by_cause')
    .columns(['component', 'error_key', 'cause_key', ...stateColumns])
    .expression(db.selectFrom('incident_states').select(['component', 'error_key', sql<string>`''`.as('cause_key'), ...stateColumns]))
    .execute();
  await db
    .insertInto('incident_states_by_cause')
    .columns(['component', 'error_key', 'cause_key', ...stateColumns])
    .expression(
      db
        .selectFrom('incident_states as s')
        .innerJoin(causes, (j) => j.onRef('c.component', '=', 's.component').onRef('c.error_key', '=', 's.error_key'))
        .select(['s.component', 's.error_key', 'c.cause_key', ...stateColumns.map((c) => `s.${c}` as const)]),
    )
    .execute();
  await db.schema.dropTable('incident_states').execute();
  await db.schema.alterTable('incident_states_by_cause').renameTo('incident_states').execute();

  // Activity: each split cause gets a copy of its group's history, in the same order.
  await db.schema.alterTable('incident_activity').addColumn('cause_key', 'text', (c) => c.notNull().defaultTo('')).execute();
  const activityColumns = ['ts', 'actor_token_id', 'state', 'note', 'ignore_until', 'ignore_occurrences'] as const;
  await db
    .insertInto('incident_activity')
    .columns(['component', 'error_key', 'cause_key', ...activityColumns])
    .expression(
      db
        .selectFrom('incident_activity as a')
        .innerJoin(causes, (j) => j.onRef('c.component', '=', 'a.component').onRef('c.error_key', '=', 'a.error_key'))
        .select(['a.component', 'a.error_key', 'c.cause_key', ...activityColumns.map((c) => `a.${c}` as const)])
        .where('a.cause_key', '=', '')
        .orderBy('c.cause_key')
        .orderBy('a.seq'),
    )
    .execute();
  await db.schema.dropIndex('incident_activity_group').execute();
  await db.schema.createIndex('incident_activity_group').on('incident_activity').columns(['component', 'error_key', 'cause_key', 'seq']).execute();
}

/** Not reversible: the states of split causes cannot be merged back into one without a choice. */
export async function down(): Promise<void> {
  throw new Error('015_incident_cause cannot be undone');
}
