import type { Kysely } from 'kysely';

/**
 * Issue 38, traces: the W3C trace context (`traceparent`) of the span that wrote an event, so a
 * delivery of it, on any node and at any later time, continues the same trace, as do the events
 * its handler emits; and that of a publish queued while ingress is paused, for its event once
 * released. Null while tracing is off, and for rows written before this.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('traceparent', 'text').execute();
  await db.schema.alterTable('ingress_queue').addColumn('traceparent', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ingress_queue').dropColumn('traceparent').execute();
  await db.schema.alterTable('events').dropColumn('traceparent').execute();
}
