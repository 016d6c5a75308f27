/**
 * What the alert evaluator reads and remembers: conditions that are not a single write (an item
 * past its SLA, a dead-letter rate, the oldest due delivery), and which of them held at the last
 * evaluation, so each notifies once per episode. On PostgreSQL one server evaluates at a time (a
 * transaction-level advisory lock).
 */
import type { Kysely } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import type { Database } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';

export interface AlertConditionState {
  rule_id: string;
  subject_key: string;
  holding: boolean;
  episode: number;
}

export interface OverdueMailboxItem {
  mailbox_id: string;
  type: string;
  created_at: string;
  priority: string;
  run_id: string | null;
}

/** The evaluator's transaction lock key (an arbitrary constant: "alerts" in ASCII). */
const EVALUATOR_LOCK = 0x616c65727473;

export class AlertConditionRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  private on(tx?: StoreTx): Kysely<Database> {
    return tx ? executorOf(tx) : this.db;
  }

  /**
   * Takes the evaluator's lock for the rest of `tx` when no other server holds it (PostgreSQL);
   * true on SQLite, where one process owns the store.
   */
  async tryEvaluatorLock(tx: StoreTx): Promise<boolean> {
    return this.engine.tryTransactionLock(executorOf(tx), EVALUATOR_LOCK);
  }

  /** The remembered state of condition rules: which subjects held at the last evaluation. */
  async states(ruleIds: readonly string[], tx?: StoreTx): Promise<AlertConditionState[]> {
    if (ruleIds.length === 0) return [];
    const rows = await this.on(tx).selectFrom('alert_conditions').selectAll().where('rule_id', 'in', [...ruleIds]).execute();
    return rows.map((r) => ({ rule_id: r.rule_id, subject_key: r.subject_key, holding: Boolean(r.holding), episode: Number(r.episode) }));
  }

  async setState(state: AlertConditionState, now: string, tx?: StoreTx): Promise<void> {
    const values = { holding: state.holding ? 1 : 0, episode: state.episode, changed_at: now };
    await this.on(tx)
      .insertInto('alert_conditions')
      .values({ rule_id: state.rule_id, subject_key: state.subject_key, ...values })
      .onConflict((oc) => oc.columns(['rule_id', 'subject_key']).doUpdateSet(values))
      .execute();
  }

  /** Forgets a subject that is gone (a decided item): nothing more to remember about it. */
  async forget(ruleId: string, subjectKey: string, tx?: StoreTx): Promise<void> {
    await this.on(tx).deleteFrom('alert_conditions').where('rule_id', '=', ruleId).where('subject_key', '=', subjectKey).execute();
  }

  /** Dead letters written since `since`. */
  async deadLettersSince(since: string, tx?: StoreTx): Promise<number> {
    const row = await this.on(tx)
      .selectFrom('dead_letters')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Pending mailbox items of `type` created at or before `createdBy`, oldest first, at most
   * `limit` (the mailbox.sla alert's condition).
   */
  async pendingItemsOlderThan(type: string, createdBy: string, limit: number, tx?: StoreTx): Promise<OverdueMailboxItem[]> {
    return this.on(tx)
      .selectFrom('mailbox_items')
      .select(['mailbox_id', 'type', 'created_at', 'priority', 'run_id'])
      .where('status', '=', 'pending')
      .where('type', '=', type)
      .where('created_at', '<=', createdBy)
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  /** Which of `ids` are still pending mailbox items. */
  async stillPending(ids: readonly string[], tx?: StoreTx): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.on(tx).selectFrom('mailbox_items').select('mailbox_id').where('mailbox_id', 'in', [...ids]).where('status', '=', 'pending').execute();
    return new Set(rows.map((r) => r.mailbox_id));
  }
}
