/**
 * Retention (issue 39, ADR 0018): on a schedule, or when an operator asks, removes settled history
 * older than its settings allow, in batches of whole runs, one transaction per batch, pausing
 * between batches so that removal stays under a rate and the event loop and the database keep
 * serving publishes. On a shared database one server prunes at a time: a pass holds the pruning
 * lease, and each batch's transaction first renews it (a server that lost it removes nothing more).
 * A preview (dry run) walks the same batches and counts instead of removing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { zeroCounts, RETENTION_KINDS, type Clock, type RetentionCounts, type RetentionLease, type RetentionRunRecord, type SettledRunPosition, type StorageReading, type Store } from '@switchboard/store';
import { newId } from '../ids';
import type { RuntimeLog } from '../runtime-log';
import { cutoffsAt, retentionEnabled, type RetentionSettings } from './retention-settings';
import { BatchSizer } from './batch-sizer';

/** The lease outlives any one batch and its pause many times over; each batch renews it. */
const LEASE_MS = 60_000;
/**
 * Free pages given back per step after a pass (SQLite), with a pause between steps: at most
 * this, fewer while steps take longer than a batch may (BatchSizer), since a step holds the only
 * writer and publishes wait for it.
 */
const RECLAIM_PAGES_PER_STEP = 500;
/** The least pause between two batches, so other work gets the event loop and the database. */
const MIN_PAUSE_MS = 5;
/**
 * A pass works at most this share of the time: after a batch it pauses at least as long as the
 * batch took times (1 - share) / share. On SQLite a batch holds the event loop and the only writer
 * while it runs, so this bounds how much of either a pass takes from publishes.
 */
const WORK_SHARE = 0.5;

/** A pass's outcome: its record, or that another server holds the lease. */
export type RetentionPassOutcome = { ran: true; run: RetentionRunRecord; storage_before?: StorageReading; storage_after?: StorageReading } | { ran: false; held_by: string };

/** What retention reports: its settings, the last pass and preview, and when the next pass is due on this server. */
export interface RetentionStatus {
  settings: RetentionSettings;
  enabled: boolean;
  last_run: RetentionRunRecord | undefined;
  last_preview: RetentionRunRecord | undefined;
  next_run_at: string | undefined;
  /** The server pruning now, when one is. */
  running_on: string | undefined;
  storage: StorageReading;
}

class LeaseLost extends Error {
  constructor() {
    super('the pruning lease passed to another server');
  }
}

export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private nextRunAt: Date | undefined;
  private running: Promise<RetentionPassOutcome> | undefined;
  private runningDryRun = false;
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: RuntimeLog,
    private readonly serverId: string,
    readonly settings: RetentionSettings,
    /** A reset empties what a pass would remove: a scheduled pass waits for the next interval. */
    private readonly isResetting: () => boolean = () => false,
  ) {}

  /** Schedules passes every interval (none when every setting keeps forever). */
  start(): void {
    if (this.timer || !retentionEnabled(this.settings)) return;
    this.schedule();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextRunAt = undefined;
    this.stopping.abort();
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    this.nextRunAt = new Date(this.clock.now().getTime() + this.settings.intervalMs);
    this.timer = setTimeout(() => {
      if (this.isResetting()) return this.schedule();
      void this.run({ dryRun: false, trigger: 'schedule' })
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopping.signal.aborted) this.schedule();
        });
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  /** What health checks show: cheap enough for every heartbeat (one indexed read). */
  async summary(): Promise<{ enabled: boolean; lastRun: RetentionRunRecord | undefined; nextRunAt: string | undefined }> {
    const [lastRun] = await this.store.retention.latestRuns(1, false);
    return { enabled: retentionEnabled(this.settings), lastRun, nextRunAt: this.nextRunAt?.toISOString() };
  }

  async status(): Promise<RetentionStatus> {
    const [lastRun] = await this.store.retention.latestRuns(1, false);
    const [lastPreview] = await this.store.retention.latestRuns(1, true);
    const holder = await this.store.retention.leaseHolder();
    return {
      settings: this.settings,
      enabled: retentionEnabled(this.settings),
      last_run: lastRun,
      last_preview: lastPreview,
      next_run_at: this.nextRunAt?.toISOString(),
      running_on: holder?.owner,
      storage: await this.store.retention.storage(),
    };
  }

  /**
   * One pass (or preview). A call of the same kind while this server runs one waits for it and
   * gets its outcome; a preview during a pass (or a pass during a preview) is told this server is
   * busy, as it would be told of another server's.
   */
  run(options: { dryRun: boolean; trigger: 'schedule' | 'manual' }): Promise<RetentionPassOutcome> {
    if (this.running) return this.runningDryRun === options.dryRun ? this.running : Promise.resolve({ ran: false, held_by: this.serverId });
    this.runningDryRun = options.dryRun;
    this.running = this.pass(options).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass({ dryRun, trigger }: { dryRun: boolean; trigger: 'schedule' | 'manual' }): Promise<RetentionPassOutcome> {
    const retention = this.store.retention;
    const lease = await retention.claimLease(this.serverId, LEASE_MS);
    if (!lease) return { ran: false, held_by: (await retention.leaseHolder())?.owner ?? 'another server' };
    const startedAt = this.clock.now();
    const cutoffs = cutoffsAt(startedAt, this.settings);
    const id = newId('ret', startedAt);
    const removed = zeroCounts();
    let storageBefore: StorageReading | undefined;
    try {
      // Only a lease holder runs a pass: one still marked running was a stopped or dead server's.
      await retention.interruptStale(startedAt.toISOString());
      await retention.startRun({ retention_run_id: id, started_at: startedAt.toISOString(), dry_run: dryRun, trigger, server_id: this.serverId, cutoffs });
      storageBefore = dryRun ? undefined : await retention.storage();
      const pacer = this.pacer(dryRun);
      const sampled = await retention.sampledRecords();

      let after: SettledRunPosition | undefined;
      const runsPerBatch = new BatchSizer(this.settings.batchSize, this.batchesBoundedByTime);
      for (;;) {
        const batchStarted = performance.now();
        const batch = await retention.prunableRuns(cutoffs, runsPerBatch.size, after, sampled.runIds);
        if (batch.length === 0) break;
        after = batch[batch.length - 1];
        const ids = batch.map((r) => r.run_id);
        const counts = dryRun
          ? await this.counted(lease, () => retention.countRuns(ids))
          : await this.inBatch(lease, async (tx) => {
              const c = await retention.removeRuns(ids, cutoffs, tx);
              if (c.logs) await retention.markRecordsIncompleteBefore(cutoffs.history!, tx);
              return c;
            });
        runsPerBatch.took(performance.now() - batchStarted);
        await pacer(add(removed, counts));
      }

      let afterSeq = 0;
      const logsPerBatch = new BatchSizer(this.settings.batchSize * 10, this.batchesBoundedByTime);
      for (;;) {
        const batchStarted = performance.now();
        const { seqs, lastSeq } = await retention.looseLogs(cutoffs, logsPerBatch.size, afterSeq, sampled.logSeqs);
        if (seqs.length > 0) {
          const n = dryRun
            ? seqs.length
            : await this.inBatch(lease, async (tx) => {
                await retention.markRecordsIncompleteBefore(cutoffs.history!, tx);
                return retention.removeLogs(seqs, tx);
              });
          logsPerBatch.took(performance.now() - batchStarted);
          await pacer(add(removed, { logs: n }));
        }
        if (lastSeq === undefined) break;
        afterSeq = lastSeq;
      }

      const hours = dryRun ? await retention.incidentHours(cutoffs) : await this.inBatch(lease, (tx) => retention.incidentHours(cutoffs, tx));
      add(removed, { incident_hours: hours });

      let auditAfter = 0;
      const auditPerBatch = new BatchSizer(this.settings.batchSize * 10, this.batchesBoundedByTime);
      for (;;) {
        const batchStarted = performance.now();
        const seqs = await retention.oldAuditSeqs(cutoffs, auditPerBatch.size, auditAfter);
        if (seqs.length === 0) break;
        auditAfter = seqs[seqs.length - 1]!;
        const n = dryRun ? seqs.length : await this.inBatch(lease, (tx) => retention.removeAuditThrough(auditAfter, tx));
        auditPerBatch.took(performance.now() - batchStarted);
        await pacer(add(removed, { audit: n }));
      }

      if (!dryRun && total(removed) > 0) await this.reclaim();
      const run = await this.finish(id, 'completed', removed);
      if (!dryRun && total(removed) > 0) {
        await this.log.write({ level: 'info', component: 'retention', message: `retention removed ${describe(removed)}` }).catch(() => undefined);
      }
      return { ran: true, run, storage_before: storageBefore, storage_after: dryRun ? undefined : await retention.storage() };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const status = this.stopping.signal.aborted ? 'interrupted' : 'failed';
      await this.finish(id, status, removed, message).catch(() => undefined);
      if (status === 'failed') {
        await this.log.write({ level: 'error', component: 'retention', error_code: 'RETENTION_FAILED', message: `retention pass failed: ${message}` }).catch(() => undefined);
      }
      throw err;
    } finally {
      await retention.releaseLease(lease).catch(() => undefined);
    }
  }

  /** A batch's transaction, fenced by the lease: removes nothing once another server took it. */
  private inBatch<T>(lease: RetentionLease, fn: (tx: Parameters<Parameters<Store['transaction']>[0]>[0]) => Promise<T>): Promise<T> {
    return this.store.transaction(async (tx) => {
      if (!(await this.store.retention.renewLease(lease, LEASE_MS, tx))) throw new LeaseLost();
      return fn(tx);
    });
  }

  /** A preview's batch: renews the lease too, so a long preview keeps other passes off as a pass would. */
  private async counted<T>(lease: RetentionLease, fn: () => Promise<T>): Promise<T> {
    if (!(await this.store.retention.renewLease(lease, LEASE_MS))) throw new LeaseLost();
    return fn();
  }

  /**
   * Waits after each batch until the pass is back under its rate (rows removed over time since it
   * started), and at least a moment in any case; a preview only yields. Ends early on stop().
   */
  private pacer(dryRun: boolean): (removedSoFar: RetentionCounts) => Promise<void> {
    const started = performance.now();
    let batchStarted = started;
    return async (removedSoFar) => {
      if (this.stopping.signal.aborted) throw new Error('the server is stopping');
      const now = performance.now();
      const dueMs = dryRun ? 0 : (total(removedSoFar) / this.settings.maxRowsPerSecond) * 1000 - (now - started);
      const shareMs = ((now - batchStarted) * (1 - WORK_SHARE)) / WORK_SHARE;
      await sleep(Math.max(MIN_PAUSE_MS, dueMs, shareMs), undefined, { signal: this.stopping.signal });
      batchStarted = performance.now();
    };
  }

  /** Batches hold the only writer (and the event loop) where writers do not run concurrently: see BatchSizer. */
  private get batchesBoundedByTime(): boolean {
    return !this.store.capabilities.concurrentWriters;
  }

  /** Gives free pages back in steps where the engine can (SQLite with incremental auto-vacuum). */
  private async reclaim(): Promise<void> {
    const pagesPerStep = new BatchSizer(RECLAIM_PAGES_PER_STEP, this.batchesBoundedByTime);
    for (;;) {
      const stepStarted = performance.now();
      const asked = pagesPerStep.size;
      const given = await this.store.retention.reclaimSpace(asked);
      if (given < asked || this.stopping.signal.aborted) return;
      const stepMs = performance.now() - stepStarted;
      pagesPerStep.took(stepMs);
      await sleep(Math.max(MIN_PAUSE_MS, (stepMs * (1 - WORK_SHARE)) / WORK_SHARE));
    }
  }

  private async finish(id: string, status: RetentionRunRecord['status'], removed: RetentionCounts, error?: string): Promise<RetentionRunRecord> {
    const finishedAt = this.clock.now().toISOString();
    await this.store.retention.finishRun(id, { finished_at: finishedAt, status, removed, error });
    return (await this.store.retention.run(id))!;
  }
}

function add(into: RetentionCounts, counts: Partial<RetentionCounts>): RetentionCounts {
  for (const kind of RETENTION_KINDS) into[kind] += counts[kind] ?? 0;
  return into;
}

function total(counts: RetentionCounts): number {
  return RETENTION_KINDS.reduce((sum, k) => sum + counts[k], 0);
}

function describe(counts: RetentionCounts): string {
  return RETENTION_KINDS.filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${k.replace('_', ' ')}`)
    .join(', ');
}
