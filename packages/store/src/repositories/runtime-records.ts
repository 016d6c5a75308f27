import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, IngressQueueTable, ResetsTable } from '../schema';

export type ResetRow = Selectable<ResetsTable>;
export type QueuedPublishRow = Pick<Selectable<IngressQueueTable>, 'queue_id' | 'event_id' | 'run_id' | 'event_name' | 'entity_id' | 'source' | 'queued_at'>;

const TOOL_FAULTS_KEY = 'tool_faults:';

/**
 * The runtime's own records: the reset audit trail, publishes queued while ingress is paused, and
 * which simulated tool servers an operator turned faults off for.
 */
export class RuntimeRecordReads {
  constructor(private readonly db: Kysely<Database>) {}

  /** Reset audit records, newest first. */
  resets(limit: number): Promise<ResetRow[]> {
    return this.db.selectFrom('resets').selectAll().orderBy('started_at', 'desc').orderBy('reset_id', 'desc').limit(limit).execute();
  }

  /** Tool servers whose faults an operator switched, with the switch ('on' or 'off'). */
  async toolFaults(): Promise<Map<string, 'on' | 'off'>> {
    const rows = await this.db.selectFrom('runtime_state').select(['key', 'value']).where('key', 'like', `${TOOL_FAULTS_KEY}%`).execute();
    return new Map(rows.map((r) => [r.key.slice(TOOL_FAULTS_KEY.length), r.value === 'off' ? 'off' : 'on']));
  }

  async setToolFaults(trx: Kysely<Database> | Transaction<Database>, server: string, faults: 'on' | 'off'): Promise<void> {
    await trx
      .insertInto('runtime_state')
      .values({ key: `${TOOL_FAULTS_KEY}${server}`, value: faults })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: faults }))
      .execute();
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
