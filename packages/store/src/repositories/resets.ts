/**
 * What a reset removes and what it keeps, in one place so that the plan's counts, the cleanup
 * preview and the cleanup itself cannot disagree; and the reset audit trail.
 *
 * Removed: everything a run produced (runs, events, deliveries, dead letters, entities, mailbox
 * items and their history, conversations and turns, queued publishes) and the log records tied to
 * any of them. Reset in place: agents (declared by the bundle) go back to idle with no session.
 * Kept: tokens, browser sessions, idempotency records, the reset audit trail, runtime settings
 * and log records not tied to a run-scoped record, the bundle (a file), and container records,
 * which the managed-container stop owns.
 */
import type { Insertable, Kysely } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import type { Database, ResetsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';
import { rebuildIncidentRollup } from './logs';

export const REMOVED_TABLES = [
  'runs',
  'events',
  'deliveries',
  'dead_letters',
  'logs',
  'entities',
  'mailbox_items',
  'mailbox_history',
  'conversations',
  'turns',
  'ingress_queue',
] as const;

export type RemovedTable = (typeof REMOVED_TABLES)[number];
export type RemovalCounts = Record<RemovedTable, number>;

export const KEPT_RECORDS = ['tokens', 'web_sessions', 'idempotency_records', 'reset_audit_records', 'runtime_settings', 'unscoped_logs', 'bundle'] as const;

/** Column whose maximum changes whenever a row is added: with the count it fingerprints a table. */
const MARKER: Record<RemovedTable, string> = {
  runs: 'run_id',
  events: 'seq',
  deliveries: 'delivery_id',
  dead_letters: 'dead_letter_id',
  logs: 'seq',
  entities: 'entity_id',
  mailbox_items: 'seq',
  mailbox_history: 'seq',
  conversations: 'seq',
  turns: 'turn_id',
  ingress_queue: 'seq',
};

/** Logs are removed only when they point at a run-scoped record. */
function scopeLogs<Q extends { where: (...args: any[]) => Q }>(q: Q): Q {
  return q.where((eb: any) =>
    eb.or([
      eb('run_id', 'is not', null),
      eb('event_id', 'is not', null),
      eb('delivery_id', 'is not', null),
      eb('dead_letter_id', 'is not', null),
      eb('entity_id', 'is not', null),
      eb('session_id', 'is not', null),
    ]),
  );
}

export interface TableSnapshot {
  count: number;
  marker: string | number | null;
}

export interface KeptCounts {
  tokens: number;
  web_sessions: number;
  idempotency_records: number;
  reset_audit_records: number;
}

export class ResetRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  async snapshot(table: RemovedTable): Promise<TableSnapshot> {
    let q = (this.db as Kysely<any>).selectFrom(table).select((eb: any) => [eb.fn.countAll().as('n'), eb.fn.max(MARKER[table]).as('m')]);
    if (table === 'logs') q = scopeLogs(q);
    const row = (await q.executeTakeFirstOrThrow()) as { n: number | string; m: string | number | null };
    return { count: Number(row.n), marker: row.m ?? null };
  }

  async snapshotRemovals(): Promise<Record<RemovedTable, TableSnapshot>> {
    const out = {} as Record<RemovedTable, TableSnapshot>;
    for (const table of REMOVED_TABLES) out[table] = await this.snapshot(table);
    return out;
  }

  /** Agents whose state a reset puts back to idle with no session. */
  async agentsToResetCount(): Promise<number> {
    const row = await this.db
      .selectFrom('agents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.or([eb('status', '!=', 'idle'), eb('current_session_id', 'is not', null), eb('last_turn_id', 'is not', null)]))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async keptCounts(): Promise<KeptCounts> {
    const count = async (table: 'tokens' | 'web_sessions' | 'idempotency' | 'resets') => {
      const row = await (this.db as Kysely<any>).selectFrom(table).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      return Number((row as { n: number | string }).n);
    };
    return {
      tokens: await count('tokens'),
      web_sessions: await count('web_sessions'),
      idempotency_records: await count('idempotency'),
      reset_audit_records: await count('resets'),
    };
  }

  /** Deletes every run-scoped row inside the caller's transaction; returns rows deleted per table. */
  async deleteRunScoped(tx: StoreTx): Promise<RemovalCounts> {
    markChange(tx, 'reset');
    const deleted = {} as RemovalCounts;
    // Children before parents, so a foreign key added later would not break the order.
    const order: RemovedTable[] = ['turns', 'conversations', 'mailbox_history', 'mailbox_items', 'dead_letters', 'deliveries', 'ingress_queue', 'logs', 'events', 'entities', 'runs'];
    const db = executorOf(tx) as Kysely<any>;
    // Approvals belong to their mailbox items (counted with them), so they go first and uncounted.
    await db.deleteFrom('mailbox_approvals').execute();
    for (const table of order) {
      deleted[table] = await this.engine.deleteAll(db, table, table === 'logs' ? scopeLogs : undefined);
    }
    // The incident rollup follows the log records that are left (those tied to nothing removed).
    await rebuildIncidentRollup(db);
    return Object.fromEntries(REMOVED_TABLES.map((t) => [t, deleted[t]])) as RemovalCounts;
  }

  /** Puts agents back to idle with no session; returns how many changed. */
  async resetAgents(tx: StoreTx, nowIso: string): Promise<number> {
    const res = await executorOf(tx)
      .updateTable('agents')
      .set({ status: 'idle', current_session_id: null, last_turn_id: null, updated_at: nowIso })
      .where((eb) => eb.or([eb('status', '!=', 'idle'), eb('current_session_id', 'is not', null), eb('last_turn_id', 'is not', null)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  // --- the audit trail ---

  async startAudit(row: Insertable<ResetsTable>): Promise<void> {
    await this.db.insertInto('resets').values(row).execute();
  }

  /** Audit records left in_progress by a process that died mid-reset, other than `currentId`. */
  async markInterrupted(currentId: string, nowIso: string): Promise<void> {
    await this.db.updateTable('resets').set({ status: 'interrupted', finished_at: nowIso }).where('status', '=', 'in_progress').where('reset_id', '!=', currentId).execute();
  }

  /** The reset's end is what other servers announce to their consoles (a 'reset' change). */
  async finishAudit(tx: StoreTx, resetId: string, outcome: { status: string; result: string; finished_at: string }): Promise<void> {
    markChange(tx, 'reset');
    await executorOf(tx).updateTable('resets').set(outcome).where('reset_id', '=', resetId).execute();
  }
}
