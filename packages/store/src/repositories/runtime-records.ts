import type { Kysely, Selectable } from 'kysely';
import type { Database, IngressQueueTable, ResetsTable } from '../schema';

export type ResetRow = Selectable<ResetsTable>;
export type QueuedPublishRow = Pick<Selectable<IngressQueueTable>, 'queue_id' | 'event_id' | 'run_id' | 'event_name' | 'entity_id' | 'source' | 'queued_at'>;

/** Reads of the runtime's own records: the reset audit trail and publishes queued while ingress is paused. */
export class RuntimeRecordReads {
  constructor(private readonly db: Kysely<Database>) {}

  /** Reset audit records, newest first. */
  resets(limit: number): Promise<ResetRow[]> {
    return this.db.selectFrom('resets').selectAll().orderBy('started_at', 'desc').orderBy('reset_id', 'desc').limit(limit).execute();
  }

  /** Publishes waiting for ingress to resume, oldest first (the order resume releases them in). */
  queued(limit: number): Promise<QueuedPublishRow[]> {
    return this.db
      .selectFrom('ingress_queue')
      .select(['queue_id', 'event_id', 'run_id', 'event_name', 'entity_id', 'source', 'queued_at'])
      .where('status', '=', 'queued')
      .orderBy('seq')
      .limit(limit)
      .execute();
  }
}
