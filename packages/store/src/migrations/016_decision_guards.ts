import { sql, type Kysely, type SqlBool } from 'kysely';

/**
 * Decision and replay guards (issue 36, part D).
 * - An approval given while some of the entity's gates failed keeps the operator's override note
 *   and the gates it overrode (JSON) in the decision's history entry.
 * - The replays of an event ("Replayed as …") are found through a partial index: only replayed
 *   events carry replay_of_event_id.
 * - An entity's revision as of an event (the replay dialog's "then") is counted from its change
 *   log records (component 'entities', one per revision), through a partial index on those.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['override_note', 'overridden_gates']) {
    await db.schema.alterTable('mailbox_history').addColumn(column, 'text').execute();
  }
  await db.schema.createIndex('events_replay_of').on('events').columns(['replay_of_event_id', 'seq']).where(sql.ref('replay_of_event_id'), 'is not', null).execute();
  await db.schema
    .createIndex('logs_entity_changes')
    .on('logs')
    .columns(['entity_id', 'seq'])
    .where(sql<SqlBool>`${sql.ref('component')} = 'entities' and ${sql.ref('level_rank')} = 1`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('logs_entity_changes').execute();
  await db.schema.dropIndex('events_replay_of').execute();
  for (const column of ['override_note', 'overridden_gates']) {
    await db.schema.alterTable('mailbox_history').dropColumn(column).execute();
  }
}
