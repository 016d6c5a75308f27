import type { Kysely } from 'kysely';

/**
 * Issue 38: alerts. `alert_rules` turn transitions into notices sent to `alert_destinations`.
 * `alert_notices` is an outbox: a notice commits with the transition that caused it and a sender
 * claims it with a lease (`lease_owner`, `lease_until`), so one node sends it and a node killed
 * mid-send leaves a lease that lapses. `dedupe_key` (rule, destination, transition, subject,
 * episode) makes one transition one notice even when two nodes see it; test notices have none.
 * `alert_conditions` remembers which conditions (a rate, an age) hold, so a condition notifies once
 * per episode. `alert_silences` mute a rule or one incident until a time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alert_destinations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .execute();
  await db.schema
    .createTable('alert_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('trigger', 'text', (c) => c.notNull())
    // The rule's `when` as JSON (trigger and its options).
    .addColumn('condition', 'text', (c) => c.notNull())
    .addColumn('destination_ids', 'text', (c) => c.notNull())
    .addColumn('escalation_destination_ids', 'text', (c) => c.notNull())
    // Bundle rules name destinations; resolved when a notice is made, so they may be created later.
    .addColumn('destination_names', 'text', (c) => c.notNull())
    .addColumn('escalation_destination_names', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_notices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rule_id', 'text')
    .addColumn('rule_name', 'text')
    .addColumn('destination_id', 'text', (c) => c.notNull())
    .addColumn('destination_name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transition', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('link', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .addColumn('dedupe_key', 'text', (c) => c.unique())
    .execute();
  // alert.notices pages newest first; the sender looks for due pending notices.
  await db.schema.createIndex('alert_notices_created').on('alert_notices').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('alert_notices_due').on('alert_notices').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('alert_notices_subject').on('alert_notices').columns(['subject_id', 'created_at']).execute();
  await db.schema
    .createTable('alert_silences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rule_id', 'text')
    .addColumn('incident_id', 'text')
    .addColumn('until', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema
    .createTable('alert_conditions')
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('subject_key', 'text', (c) => c.notNull())
    .addColumn('holding', 'integer', (c) => c.notNull())
    .addColumn('episode', 'integer', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_conditions_pk', ['rule_id', 'subject_key'])
    .execute();
  // The dead_letters.rate condition counts the last minute's dead letters.
  await db.schema.createIndex('dead_letters_created').on('dead_letters').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('dead_letters_created').execute();
  await db.schema.dropTable('alert_conditions').execute();
  await db.schema.dropTable('alert_silences').execute();
  await db.schema.dropTable('alert_notices').execute();
  await db.schema.dropTable('alert_rules').execute();
  await db.schema.dropTable('alert_destinations').execute();
}
