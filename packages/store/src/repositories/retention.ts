/**
 * Retention's statements (ADR 0018): which settled runs may go, removing a batch of them whole,
 * old log records no run owns, old incident rollup hours and old audit records; the lease that
 * lets one server prune at a time; and the record of each pass. What may go is decided here in
 * SQL, inside the statement that selects a batch, so a run that became unfinished again (a redrive
 * of its dead letter, a new pending item) is not selected; the runtime (runtime/src/retention)
 * owns the schedule, the cut-offs and the pacing.
 */
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { StoreEngine, StorageReading } from '../engines/engine';
import type { Database, RetentionRunsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import { markChange } from '../change-feed';
import { INCIDENT_MIN_LEVEL_RANK, RECORDS_COMPLETE_FROM_KEY, incidentGroupConditions, minuteOf, nextSixHourBlock, sixHourBlockOf, type IncidentKey } from './incidents';
import { rebuildIncidentSixHours } from './logs';
import { MAX_ROWS_PER_STATEMENT } from './statement-size';

/** The kinds of rows a pass removes, in the order a run's rows are removed. */
export const RETENTION_KINDS = ['runs', 'events', 'deliveries', 'dead_letters', 'turns', 'conversations', 'queued_publishes', 'logs', 'incident_hours', 'audit'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];
export type RetentionCounts = Record<RetentionKind, number>;

export function zeroCounts(): RetentionCounts {
  return Object.fromEntries(RETENTION_KINDS.map((k) => [k, 0])) as RetentionCounts;
}

/** Rows older than these go (ISO times; undefined: that kind is kept forever). */
export interface RetentionCutoffs {
  /** Settled runs (settled before this) with their events, deliveries, dead letters, turns and log records; log records no run owns. */
  history?: string;
  /** A settled run with a dead letter not redriven is kept until it settled before this. */
  deadLetters?: string;
  /** Incident rollup hours that ended before this. */
  incidentHours?: string;
  /** Audit records made before this. */
  audit?: string;
}

/** Where a walk of settled runs stopped: the next batch starts after it. */
export interface SettledRunPosition {
  settled_at: string;
  run_id: string;
}

/** A lease on pruning: its writes count only while (owner, epoch) still holds it. */
export interface RetentionLease {
  owner: string;
  epoch: number;
}

/** Log records kept because an incident shows them, and the runs they belong to (kept whole). */
export interface SampledRecords {
  logSeqs: Set<number>;
  runIds: Set<string>;
}

export interface RetentionRunRecord {
  retention_run_id: string;
  started_at: string;
  finished_at: string | null;
  dry_run: boolean;
  trigger: 'schedule' | 'manual';
  server_id: string;
  status: 'running' | 'completed' | 'failed' | 'interrupted';
  cutoffs: RetentionCutoffs;
  removed: RetentionCounts;
  error: string | null;
}

/** An incident shows its latest five records (IncidentRepository.samples): those are kept. */
const SAMPLED_PER_INCIDENT = 5;

/**
 * Lengths a delete of audit target keys is padded to (the last key repeated): a few statement
 * texts instead of one per batch length, which would crowd the SQLite statement cache.
 */
const TARGET_KEYS_PER_STATEMENT = [16, 128, MAX_ROWS_PER_STATEMENT];

function keysPadded<K>(keys: readonly K[]): K[] {
  const length = TARGET_KEYS_PER_STATEMENT.find((n) => n >= keys.length) ?? keys.length;
  return Array.from({ length }, (_, i) => keys[Math.min(i, keys.length - 1)]!);
}
const PENDING_STATUSES = ['pending', 'in_progress'];
const UNFINISHED_OPERATIONS = ['running', 'paused'];

type RunsEb = ExpressionBuilder<Database, 'runs'>;

/** A select (a preview counts) or a delete (a pass removes) on one table, narrowed to the records of some runs: both builders take the same where. */
type RunScope = (query: any, db: Kysely<Database>, runIds: string[]) => any;
const ofRuns: RunScope = (q, _db, runIds) => q.where('run_id', 'in', runIds);

/**
 * What a removed run takes with it, per kind, children before the rows they point at: the order
 * a batch deletes in, and what a preview counts.
 */
const RUN_RECORDS: { kind: keyof RetentionCounts; table: keyof Database; scope: RunScope }[] = [
  { kind: 'turns', table: 'turns', scope: (q, db, runIds) => q.where('trigger_event_id', 'in', db.selectFrom('events').select('event_id').where('run_id', 'in', runIds)) },
  { kind: 'conversations', table: 'conversations', scope: (q, db, runIds) => ofRuns(q, db, runIds).where('status', '<>', 'active') },
  { kind: 'queued_publishes', table: 'ingress_queue', scope: ofRuns },
  { kind: 'logs', table: 'logs', scope: ofRuns },
  { kind: 'deliveries', table: 'deliveries', scope: ofRuns },
  { kind: 'dead_letters', table: 'dead_letters', scope: ofRuns },
  { kind: 'events', table: 'events', scope: ofRuns },
  { kind: 'runs', table: 'runs', scope: ofRuns },
];

export class RetentionRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  // --- the lease ---

  /**
   * Takes the pruning lease for `owner` until `leaseMs` from now (database clock) when nobody holds
   * it or its holder's lease expired; the new epoch, or undefined when another server holds it.
   */
  async claimLease(owner: string, leaseMs: number): Promise<RetentionLease | undefined> {
    const row = await this.db
      .updateTable('retention_lease')
      .set((eb) => ({ owner, epoch: eb('epoch', '+', 1), expires_at: this.engine.now(leaseMs) }))
      .where('id', '=', 1)
      .where((eb) => eb.or([eb('owner', 'is', null), eb('owner', '=', owner), eb('expires_at', '<=', this.engine.now())]))
      .returning('epoch')
      .executeTakeFirst();
    return row ? { owner, epoch: Number(row.epoch) } : undefined;
  }

  /** The fence, first in each batch's transaction: extends the lease while it is still ours; false when it was lost. */
  async renewLease(lease: RetentionLease, leaseMs: number, tx?: StoreTx): Promise<boolean> {
    const res = await (tx ? executorOf(tx) : this.db)
      .updateTable('retention_lease')
      .set({ expires_at: this.engine.now(leaseMs) })
      .where('id', '=', 1)
      .where('owner', '=', lease.owner)
      .where('epoch', '=', lease.epoch)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async releaseLease(lease: RetentionLease): Promise<void> {
    await this.db.updateTable('retention_lease').set({ owner: null, expires_at: null }).where('id', '=', 1).where('owner', '=', lease.owner).where('epoch', '=', lease.epoch).execute();
  }

  /** Who holds the lease now (an expired lease is held by nobody). */
  async leaseHolder(): Promise<{ owner: string; expires_at: string } | undefined> {
    const row = await this.db
      .selectFrom('retention_lease')
      .select(['owner', 'expires_at'])
      .where('id', '=', 1)
      .where('owner', 'is not', null)
      .where('expires_at', '>', this.engine.now())
      .executeTakeFirst();
    return row?.owner && row.expires_at ? { owner: row.owner, expires_at: row.expires_at } : undefined;
  }

  // --- what is kept ---

  /**
   * The records incidents still show: the latest five of every incident group (its samples, which
   * a resolved group that regresses shows again), and every record since the change of a group
   * ignored until a number of occurrences (they are counted). Read once per pass.
   */
  async sampledRecords(): Promise<SampledRecords> {
    // The groups from the rollup (a few rows per hour) rather than a grouping of every record; a
    // group whose rollup hours all expired has no record younger than history's cut-off either.
    const groups = (await this.db.selectFrom('incident_hours').select(['component', 'error_key', 'cause_key']).distinct().execute()).map((g) => ({
      component: g.component,
      error_code: g.error_key === '' ? null : g.error_key,
      cause_key: g.cause_key,
    }));
    const ignored = await this.db.selectFrom('incident_states').select(['component', 'error_key', 'cause_key', 'changed_at', 'ignore_occurrences']).where('state', '=', 'ignored').where('ignore_occurrences', 'is not', null).execute();
    const logSeqs = new Set<number>();
    const runIds = new Set<string>();
    const ofGroup = (g: IncidentKey) =>
      this.db
        .selectFrom('logs')
        .select(['seq', 'run_id'])
        .where(sql.ref('level_rank'), '>=', sql.lit(INCIDENT_MIN_LEVEL_RANK))
        .where((eb) => eb.and(incidentGroupConditions(eb, this.engine, g)));
    const keep = (rows: { seq: number; run_id: string | null }[]) => {
      for (const r of rows) {
        logSeqs.add(Number(r.seq));
        if (r.run_id) runIds.add(r.run_id);
      }
    };
    for (const g of groups) keep(await ofGroup(g).orderBy('ts', 'desc').orderBy('seq', 'desc').limit(SAMPLED_PER_INCIDENT).execute());
    for (const s of ignored) {
      const since = ofGroup({ component: s.component, error_code: s.error_key === '' ? null : s.error_key, cause_key: s.cause_key }).where('ts', '>', s.changed_at);
      keep(await since.orderBy('ts').orderBy('seq').limit(Number(s.ignore_occurrences)).execute());
    }
    return { logSeqs, runIds };
  }

  // --- settled runs ---

  /**
   * Up to `limit` runs that may go, oldest settled first, after `after`: settled before the
   * history cut-off and nothing of them unfinished - no pending or leased delivery, no pending
   * mailbox item, no pending item of a running or paused operation aimed at one of their events or
   * dead letters, and no dead letter left to redrive unless the run settled before the dead-letter
   * cut-off too. Runs in `keep` (an incident's samples) are passed over.
   */
  async prunableRuns(cutoffs: RetentionCutoffs, limit: number, after: SettledRunPosition | undefined, keep: ReadonlySet<string>): Promise<SettledRunPosition[]> {
    if (!cutoffs.history) return [];
    const history = cutoffs.history;
    const deadLetters = cutoffs.deadLetters;
    const out: SettledRunPosition[] = [];
    let from = after;
    // Kept runs are filtered here rather than in SQL (their ids would make each statement's text
    // differ); a batch that was all kept runs reads on.
    for (;;) {
      const rows = await this.db
        .selectFrom('runs')
        .select(['settled_at', 'run_id'])
        // A settle time is set exactly while a run is settled (a reopened run loses it): no status
        // test, which would lead SQLite's planner to runs_status and a sort of every settled run.
        .where('settled_at', 'is not', null)
        .where('settled_at', '<', history)
        .$if(from !== undefined, (q) => q.where((eb) => eb(eb.refTuple('settled_at', 'run_id'), '>', eb.tuple(from!.settled_at, from!.run_id))))
        .where((eb) => this.nothingUnfinished(eb, deadLetters))
        .orderBy('settled_at')
        .orderBy('run_id')
        .limit(limit)
        .execute();
      for (const r of rows) if (!keep.has(r.run_id)) out.push({ settled_at: r.settled_at!, run_id: r.run_id });
      if (out.length > 0 || rows.length < limit) return out;
      from = { settled_at: rows[rows.length - 1]!.settled_at!, run_id: rows[rows.length - 1]!.run_id };
    }
  }

  /** No pending or leased delivery, pending mailbox item, unfinished operation's item or dead letter left to redrive (see prunableRuns). */
  private nothingUnfinished(eb: RunsEb, deadLetters: string | undefined) {
    const noDeadLetterLeft = eb.not(eb.exists(eb.selectFrom('dead_letters').select('dead_letter_id').whereRef('dead_letters.run_id', '=', 'runs.run_id').where('dead_letters.redriven_at', 'is', null)));
    return eb.and([
      eb.not(eb.exists(eb.selectFrom('deliveries').select('delivery_id').whereRef('deliveries.run_id', '=', 'runs.run_id').where('deliveries.status', 'in', PENDING_STATUSES))),
      eb.not(eb.exists(eb.selectFrom('mailbox_items').select('mailbox_id').whereRef('mailbox_items.run_id', '=', 'runs.run_id').where('mailbox_items.status', '=', 'pending'))),
      this.noUnfinishedOperationAims(eb),
      deadLetters ? eb.or([eb('settled_at', '<', deadLetters), noDeadLetterLeft]) : noDeadLetterLeft,
    ]);
  }

  private noUnfinishedOperationAims(eb: RunsEb) {
    const aimedAt = (table: 'events' | 'dead_letters', key: 'event_id' | 'dead_letter_id') =>
      eb.exists(
        eb
          .selectFrom(table as 'events')
          .innerJoin('operation_items', 'operation_items.target_id', `${table}.${key}` as 'events.event_id')
          .innerJoin('operations', 'operations.operation_id', 'operation_items.operation_id')
          .select('operation_items.target_id')
          .whereRef(`${table}.run_id` as 'events.run_id', '=', 'runs.run_id')
          .where('operation_items.status', '=', 'pending')
          .where('operations.status', 'in', UNFINISHED_OPERATIONS),
      );
    return eb.and([eb.not(aimedAt('events', 'event_id')), eb.not(aimedAt('dead_letters', 'dead_letter_id'))]);
  }

  /** What removing `runIds` would remove, per kind (a preview's batch). */
  async countRuns(runIds: readonly string[]): Promise<Partial<RetentionCounts>> {
    if (runIds.length === 0) return {};
    const counts: Partial<RetentionCounts> = {};
    for (const { kind, table, scope } of RUN_RECORDS) {
      const row = await scope(this.db.selectFrom(table), this.db, [...runIds])
        .select((eb: ExpressionBuilder<Database, typeof table>) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      counts[kind] = Number((row as { n: number | string }).n);
    }
    return counts;
  }

  /**
   * Removes `runIds` whole, in the caller's transaction: their turns, ended run-scoped
   * conversations, queued publishes, log records, deliveries, dead letters, events and the runs.
   * The incident rollup is not touched: it keeps the counts of the records removed.
   */
  async removeRuns(runIds: readonly string[], cutoffs: RetentionCutoffs, tx: StoreTx): Promise<Partial<RetentionCounts>> {
    if (runIds.length === 0 || !cutoffs.history) return {};
    const trx = executorOf(tx);
    // Checked again in the deleting transaction, its rows held where writers are concurrent: a run
    // reopened since it was selected (a redrive, a replay's operation) is passed over this time.
    const held = await this.engine
      .skippingLockedRows(
        trx
          .selectFrom('runs')
          .select('run_id')
          .where('run_id', 'in', [...runIds])
          .where('settled_at', 'is not', null)
          .where('settled_at', '<', cutoffs.history)
          .where((eb) => this.nothingUnfinished(eb, cutoffs.deadLetters)),
      )
      .execute();
    const ids = held.map((r) => r.run_id);
    if (ids.length === 0) return {};
    const counts: Partial<RetentionCounts> = {};
    for (const { kind, table, scope } of RUN_RECORDS) {
      const res = await scope(trx.deleteFrom(table), trx, ids).executeTakeFirst();
      counts[kind] = Number((res as { numDeletedRows: bigint }).numDeletedRows);
    }
    markChange(tx, 'runs');
    markChange(tx, 'events');
    return counts;
  }

  // --- log records no run owns ---

  /** Up to `limit` seqs of log records no run owns, made before the history cut-off, after `afterSeq`; `keep` (samples) passed over. */
  async looseLogs(cutoffs: RetentionCutoffs, limit: number, afterSeq: number, keep: ReadonlySet<number>): Promise<{ seqs: number[]; lastSeq: number | undefined }> {
    if (!cutoffs.history) return { seqs: [], lastSeq: undefined };
    const rows = await this.db.selectFrom('logs').select('seq').where('run_id', 'is', null).where('ts', '<', cutoffs.history).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
    const seqs = rows.map((r) => Number(r.seq));
    return { seqs: seqs.filter((s) => !keep.has(s)), lastSeq: seqs.length === limit ? seqs[seqs.length - 1] : undefined };
  }

  /**
   * Notes, with a batch that removes log records made before `hour` (an hour's start), that
   * incident counts of earlier hours now come from the hourly rollup alone (IncidentRepository.windowGroups);
   * their per-minute rollup rows go.
   */
  async markRecordsIncompleteBefore(hour: string, tx: StoreTx): Promise<void> {
    const trx = executorOf(tx);
    const current = await trx.selectFrom('runtime_state').select('value').where('key', '=', RECORDS_COMPLETE_FROM_KEY).executeTakeFirst();
    if (current && current.value >= hour) return;
    await trx
      .insertInto('runtime_state')
      .values({ key: RECORDS_COMPLETE_FROM_KEY, value: hour })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: hour }))
      .execute();
    // The per-minute rollup serves only hours whose records are all still stored.
    await trx.deleteFrom('incident_minutes').where('minute', '<', minuteOf(hour)).execute();
  }

  async removeLogs(seqs: readonly number[], tx: StoreTx): Promise<number> {
    if (seqs.length === 0) return 0;
    const res = await executorOf(tx).deleteFrom('logs').where('seq', 'in', [...seqs]).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  // --- incident rollup ---

  /** Rollup hours that ended before the cut-off: counted, or removed in the caller's transaction. */
  async incidentHours(cutoffs: RetentionCutoffs, tx?: StoreTx): Promise<number> {
    if (!cutoffs.incidentHours) return 0;
    // An hour ends before the cut-off when the hour after it starts no later: its prefix sorts before the cut-off's hour.
    const beforeHour = cutoffs.incidentHours.slice(0, 13);
    if (!tx) {
      const row = await this.db.selectFrom('incident_hours').select((eb) => eb.fn.countAll().as('n')).where('hour', '<', beforeHour).executeTakeFirstOrThrow();
      return Number(row.n);
    }
    const trx = executorOf(tx);
    const res = await trx.deleteFrom('incident_hours').where('hour', '<', beforeHour).executeTakeFirst();
    // The six-hour blocks sum the hours still kept: blocks wholly before go, and the block the
    // cut-off falls inside is summed again from its remaining hours.
    const cutBlock = sixHourBlockOf(beforeHour);
    await trx.deleteFrom('incident_six_hours').where('block', '<', cutBlock).execute();
    if (cutBlock !== beforeHour) await rebuildIncidentSixHours(trx, { fromBlock: cutBlock, toBlock: nextSixHourBlock(cutBlock) });
    markChange(tx, 'incidents');
    return Number(res.numDeletedRows);
  }

  // --- audit trail ---

  /** The oldest up to `limit` audit seqs made before the cut-off, after `afterSeq`. */
  async oldAuditSeqs(cutoffs: RetentionCutoffs, limit: number, afterSeq: number): Promise<number[]> {
    if (!cutoffs.audit) return [];
    const rows = await this.db.selectFrom('audit').select('seq').where('at', '<', cutoffs.audit).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
    return rows.map((r) => Number(r.seq));
  }

  /**
   * Removes the audit records up to `throughSeq` (the oldest ones, in chain order) and records in
   * the chain head where the remaining chain starts, in the caller's transaction.
   */
  async removeAuditThrough(throughSeq: number, tx: StoreTx): Promise<number> {
    const trx = executorOf(tx);
    const records = await trx.selectFrom('audit').select(['seq', 'target_ids', 'hash']).where('seq', '<=', throughSeq).orderBy('seq').execute();
    const last = records[records.length - 1];
    if (!last || Number(last.seq) !== throughSeq) return 0;
    // By their keys, read from the records' own target lists: the targets' key begins with the
    // target id, so `seq <= ?` alone would read every target of the trail for each batch.
    const keys = records.flatMap((r) => (JSON.parse(r.target_ids) as string[]).map((id) => [id, Number(r.seq)] as const));
    for (let i = 0; i < keys.length; i += MAX_ROWS_PER_STATEMENT) {
      const chunk = keysPadded(keys.slice(i, i + MAX_ROWS_PER_STATEMENT));
      await trx
        .deleteFrom('audit_targets')
        .where(({ eb, refTuple, tuple }) => eb(refTuple('target_id', 'seq'), 'in', chunk.map(([id, seq]) => tuple(id, seq))))
        .execute();
    }
    const res = await trx.deleteFrom('audit').where('seq', '<=', throughSeq).executeTakeFirst();
    await trx.updateTable('audit_head').set({ pruned_through_seq: throughSeq, pruned_through_hash: last.hash }).where('id', '=', 1).execute();
    return Number(res.numDeletedRows);
  }

  // --- space and the record of passes ---

  /** The store's size and, where the engine gives room back in steps, its free pages. */
  storage(): Promise<StorageReading> {
    return this.engine.storage(this.db);
  }

  /** Gives back up to `maxPages` free pages to the file system where the engine can (SQLite, incremental auto-vacuum); pages given back. */
  reclaimSpace(maxPages: number): Promise<number> {
    return this.engine.reclaimSpace(this.db, maxPages);
  }

  async startRun(run: Omit<RetentionRunRecord, 'finished_at' | 'status' | 'removed' | 'error'>): Promise<void> {
    await this.db
      .insertInto('retention_runs')
      .values({
        retention_run_id: run.retention_run_id,
        started_at: run.started_at,
        finished_at: null,
        dry_run: run.dry_run ? 1 : 0,
        trigger: run.trigger,
        server_id: run.server_id,
        status: 'running',
        cutoffs: JSON.stringify(run.cutoffs),
        removed: JSON.stringify(zeroCounts()),
        error: null,
      })
      .execute();
  }

  async finishRun(id: string, outcome: { finished_at: string; status: RetentionRunRecord['status']; removed: RetentionCounts; error?: string }): Promise<void> {
    await this.db
      .updateTable('retention_runs')
      .set({ finished_at: outcome.finished_at, status: outcome.status, removed: JSON.stringify(outcome.removed), error: outcome.error ?? null })
      .where('retention_run_id', '=', id)
      .execute();
  }

  /** A pass left running by a server that stopped or died is interrupted; `except` is the live pass. */
  async interruptStale(finishedAt: string, except?: string): Promise<void> {
    await this.db
      .updateTable('retention_runs')
      .set({ status: 'interrupted', finished_at: finishedAt })
      .where('status', '=', 'running')
      .$if(except !== undefined, (q) => q.where('retention_run_id', '<>', except!))
      .execute();
  }

  async run(id: string): Promise<RetentionRunRecord | undefined> {
    const row = await this.db.selectFrom('retention_runs').selectAll().where('retention_run_id', '=', id).executeTakeFirst();
    return row && runRecordOf(row);
  }

  /** The latest passes, newest first; `dryRun` narrows to previews or real passes. */
  async latestRuns(limit: number, dryRun?: boolean): Promise<RetentionRunRecord[]> {
    const rows = await this.db
      .selectFrom('retention_runs')
      .selectAll()
      .$if(dryRun !== undefined, (q) => q.where('dry_run', '=', dryRun ? 1 : 0))
      .orderBy('started_at', 'desc')
      .orderBy('retention_run_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(runRecordOf);
  }
}

function runRecordOf(r: Selectable<RetentionRunsTable>): RetentionRunRecord {
  return {
      retention_run_id: r.retention_run_id,
      started_at: r.started_at,
      finished_at: r.finished_at,
      dry_run: Number(r.dry_run) === 1,
      trigger: r.trigger as RetentionRunRecord['trigger'],
      server_id: r.server_id,
      status: r.status as RetentionRunRecord['status'],
      cutoffs: JSON.parse(r.cutoffs) as RetentionCutoffs,
      removed: { ...zeroCounts(), ...(JSON.parse(r.removed) as Partial<RetentionCounts>) },
    error: r.error,
  };
}
