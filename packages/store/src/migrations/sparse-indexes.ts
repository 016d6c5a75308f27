import { sql, type Kysely } from 'kysely';

/**
 * Indexes on columns that stay null for most rows hold only the rows that have a value: the reason
 * code and redrive source are null until a delivery fails or is a redrive, as an event's entity is
 * for many events. Every read of these indexes asks for one value (`= ?`), which a partial index
 * `is not null` answers on both engines.
 *
 * On PostgreSQL (its step in 011) every status change of a delivery writes a new row version, and
 * without HOT (the status is indexed) each version gets an entry in every index over the table:
 * index insertion was a large share of PostgreSQL's CPU while draining deliveries. On SQLite (its
 * step in 028) the full indexes were most of their size for nothing, and each delivery and event
 * written added an entry to each (docs/performance-notes.md).
 */
export function sparseIndexesSteps() {
  const sparse: { name: string; table: string; columns: string[]; nullable: string }[] = [
    { name: 'deliveries_reason_page', table: 'deliveries', columns: ['reason_code', 'event_created_at', 'event_seq'], nullable: 'reason_code' },
    { name: 'deliveries_redrive_of', table: 'deliveries', columns: ['redrive_of_dead_letter_id'], nullable: 'redrive_of_dead_letter_id' },
    { name: 'events_entity', table: 'events', columns: ['entity_id', 'created_at', 'seq'], nullable: 'entity_id' },
  ];
  return {
    async up(db: Kysely<any>): Promise<void> {
      for (const index of sparse) {
        await db.schema.dropIndex(index.name).execute();
        await db.schema.createIndex(index.name).on(index.table).columns(index.columns).where(sql.ref(index.nullable), 'is not', null).execute();
      }
    },
    async down(db: Kysely<any>): Promise<void> {
      for (const index of sparse) {
        await db.schema.dropIndex(index.name).execute();
        await db.schema.createIndex(index.name).on(index.table).columns(index.columns).execute();
      }
    },
  };
}
