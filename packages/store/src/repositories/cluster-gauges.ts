import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema';
import type { RunWriteRepository } from './run-writes';

/**
 * The state of the whole cluster as a metrics scrape shows it: counts over indexed columns (the
 * deliveries' status and due time, the mailbox's status), and the operations table, which holds a
 * few rows per operator action.
 */
export interface ClusterGaugeReading {
  /** Deliveries not finished: waiting (including retries in backoff) and running. */
  deliveriesPending: number;
  deliveriesInProgress: number;
  /** When the oldest pending delivery that is due became due; undefined when none is. */
  oldestDueAt?: string;
  /** Publishes queued while ingress is paused. */
  ingressQueued: number;
  /** Pending mailbox items by type. */
  mailboxPendingByType: Map<string, number>;
  /** Redrive and replay operations that are running (not paused or finished). */
  operationsRunning: number;
}

export class ClusterGaugeReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly runWrites: Pick<RunWriteRepository, 'oldestDueAt'>,
  ) {}

  async read(nowIso: string): Promise<ClusterGaugeReading> {
    const deliveries = await this.db
      .selectFrom('deliveries')
      .select(['status', sql<number>`count(*)`.as('n')])
      .where('status', 'in', ['pending', 'in_progress'])
      .groupBy('status')
      .execute();
    // The same read runtime.status and the queue.oldest_pending alert use.
    const oldestDueAt = await this.runWrites.oldestDueAt(nowIso);
    const queued = await this.db.selectFrom('ingress_queue').select(sql<number>`count(*)`.as('n')).where('status', '=', 'queued').executeTakeFirstOrThrow();
    const mailbox = await this.db.selectFrom('mailbox_items').select(['type', sql<number>`count(*)`.as('n')]).where('status', '=', 'pending').groupBy('type').execute();
    const operations = await this.db.selectFrom('operations').select(sql<number>`count(*)`.as('n')).where('status', '=', 'running').executeTakeFirstOrThrow();
    const byStatus = new Map(deliveries.map((r) => [r.status, Number(r.n)]));
    return {
      deliveriesPending: byStatus.get('pending') ?? 0,
      deliveriesInProgress: byStatus.get('in_progress') ?? 0,
      oldestDueAt,
      ingressQueued: Number(queued.n),
      mailboxPendingByType: new Map(mailbox.map((r) => [r.type, Number(r.n)])),
      operationsRunning: Number(operations.n),
    };
  }
}
