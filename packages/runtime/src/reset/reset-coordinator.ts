/**
 * Runs a runtime reset through its four owners in the spec's order: plan (and the reset lock),
 * quiescence, cleanup, managed-container stop. A dry run asks each owner for a side-effect-free
 * preview and writes nothing. In apply mode every step's failure is caught, reported in `errors`
 * with its scope, and turns the result into partial_failure; a failed quiescence or cleanup skips
 * the steps after it, so nothing is half-deleted. The lock is released on every path, and each
 * applied reset leaves an audit record in `resets`.
 */
import type { Result } from '@switchboard/contract';
import type { OnEffectCommit } from '../effect-commit';
import { newId } from '../ids';
import { cleanup, previewCleanup, type CleanupOutcome } from './cleanup';
import { previewContainerStop, stopContainers } from './container-stop';
import { PlanStaleError, previewPlan, takePlan, type PlanSection } from './plan';
import { DEFAULT_DRAIN_TIMEOUT_MS, QuiescenceError, previewQuiescence, quiesce, restoreAfterReset, type QuiescenceOutcome } from './quiescence';
import type { ResetContext, ResetError } from './reset-context';
import type { ResetLock } from './reset-lock';

export type ResetResult = Result<'runtime.nuke'>;

/** Removal counts of the previews served, by plan hash, oldest first. */
export type ResetPreviews = Map<string, PlanSection['remove']>;

export interface ResetRequest {
  dryRun: boolean;
  expectedPlanHash?: string;
  reason?: string;
  actorTokenId?: string;
}

export interface ResetCoordinatorOptions {
  drainTimeoutMs?: number;
  /** Previews remembered across calls (the runtime keeps one map); a coordinator of its own otherwise. */
  previews?: ResetPreviews;
  /** Test seam: runs between steps, e.g. to hold a reset open or make a step fail. */
  beforeStep?: (step: 'quiescence' | 'cleanup' | 'containers') => Promise<void> | void;
}

const OPERATION = { dry: 'runtime.nuke.dry_run', apply: 'runtime.nuke.apply' } as const;

/** Previews remembered (by plan hash) so that a refused apply can record what changed since. */
const REMEMBERED_PREVIEWS = 32;

export class ResetCoordinator {
  private readonly drainTimeoutMs: number;
  private readonly previews: ResetPreviews;

  constructor(
    private readonly ctx: ResetContext,
    private readonly lock: ResetLock,
    private readonly options: ResetCoordinatorOptions = {},
  ) {
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.previews = options.previews ?? new Map();
  }

  run(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    return request.dryRun ? this.dryRun() : this.apply(request, onCommit);
  }

  /** Previews only: no lock, no audit record, no write of any kind. */
  private async dryRun(): Promise<ResetResult> {
    await this.lock.assertFree();
    const plan = await previewPlan(this.ctx, 'not_taken');
    this.previews.delete(plan.plan_hash);
    this.previews.set(plan.plan_hash, plan.remove);
    if (this.previews.size > REMEMBERED_PREVIEWS) this.previews.delete(this.previews.keys().next().value!);
    const quiescence = await previewQuiescence(this.ctx, this.drainTimeoutMs);
    const cleanupPreview = await previewCleanup(this.ctx);
    const containers = await previewContainerStop(this.ctx);
    return {
      plan,
      quiescence,
      cleanup: cleanupPreview,
      containers,
      dry_run: true,
      ok: true,
      operation_name: OPERATION.dry,
      partial_failure: false,
      status: 'dry_run',
    };
  }

  private async apply(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    const { store, clock } = this.ctx;
    // The reset's own writes (pausing and reopening ingress) name it, and so pass the write guard
    // that refuses every other mutation while the lock is held.
    const resetId = newId('reset', clock.now());
    // Throws RESET_IN_PROGRESS or PLAN_STALE before anything is written; the lock is then not held.
    let plan: PlanSection;
    try {
      plan = await takePlan(this.ctx, this.lock, resetId, request.expectedPlanHash);
    } catch (err) {
      if (err instanceof PlanStaleError) await this.recordRefusal(resetId, request, err);
      throw err;
    }
    const errors: ResetError[] = [];
    let quiescence: Record<string, unknown> = {};
    let cleanupSection: Record<string, unknown> = { skipped: true, reason: 'not reached' };
    let containers: Record<string, unknown> = { skipped: true, reason: 'not reached' };
    let quiesced: Pick<QuiescenceOutcome, 'ingress_before' | 'ingress_paused' | 'claims_paused'> | undefined;
    let cleaned: CleanupOutcome | undefined;
    let startsPaused = false;
    try {
      if (this.ctx.containerStarts) {
        await this.ctx.containerStarts.pause();
        startsPaused = true;
      }
      try {
        await store.resets.startAudit({
          reset_id: resetId,
          started_at: clock.now().toISOString(),
          finished_at: null,
          status: 'in_progress',
          reason: request.reason ?? null,
          actor_token_id: request.actorTokenId ?? null,
          plan_hash: plan.plan_hash,
          result: null,
        });
        await store.resets.markInterrupted(resetId, clock.now().toISOString());
      } catch (err) {
        errors.push({ scope: 'audit', message: `could not write the reset audit record: ${(err as Error).message}` });
      }

      try {
        await this.options.beforeStep?.('quiescence');
        const q = await quiesce(this.ctx, this.drainTimeoutMs, resetId);
        quiesced = q;
        quiescence = q;
      } catch (err) {
        if (err instanceof QuiescenceError) {
          quiesced = err.outcome;
          quiescence = err.outcome;
        } else {
          quiescence = { failed: true };
        }
        errors.push({ scope: 'quiescence', message: (err as Error).message });
      }

      if (quiescence.drained === true) {
        try {
          await this.options.beforeStep?.('cleanup');
          cleaned = await cleanup(this.ctx);
          cleanupSection = cleaned;
        } catch (err) {
          cleanupSection = { skipped: false, failed: true, deleted: null };
          errors.push({ scope: 'cleanup', message: `cleanup failed and was rolled back, nothing was deleted: ${(err as Error).message}` });
        }
      } else {
        cleanupSection = { skipped: true, reason: 'quiescence did not complete; nothing was deleted' };
      }

      if (cleaned) {
        try {
          await this.options.beforeStep?.('containers');
          const stopped = await stopContainers(this.ctx);
          containers = stopped;
          for (const f of stopped.failed) errors.push({ scope: 'containers', message: f.error });
        } catch (err) {
          containers = { failed: true };
          errors.push({ scope: 'containers', message: `managed-container stop failed: ${(err as Error).message}` });
        }
      } else {
        containers = { skipped: true, reason: 'cleanup did not complete; containers were left running with their entities' };
      }
    } finally {
      if (quiesced) {
        try {
          const ingressAfter = await restoreAfterReset(this.ctx, resetId, quiesced, cleaned !== undefined);
          quiescence = { ...quiescence, ingress_after: ingressAfter };
        } catch (err) {
          errors.push({ scope: 'quiescence', message: `could not restore ingress after the reset: ${(err as Error).message}` });
        }
      }
      if (startsPaused) {
        if (cleaned) this.ctx.containerStarts!.forgetPending();
        this.ctx.containerStarts!.resume();
      }
      await this.lock.release();
    }

    const partial = errors.length > 0;
    const result: ResetResult = {
      plan,
      quiescence,
      cleanup: cleanupSection,
      containers,
      dry_run: false,
      ok: !partial,
      operation_name: OPERATION.apply,
      partial_failure: partial,
      status: partial ? 'partial_failure' : 'completed',
      ...(partial ? { errors } : {}),
      reset_id: resetId,
    };
    await this.finishAudit(resetId, result, onCommit);
    return result;
  }

  /**
   * A refused apply (PLAN_STALE) leaves an audit record too: who tried, why, the hash they
   * previewed, the plan as it is now and, when this process served that preview, what changed
   * since (rows per removed table, now minus then). Nothing else was written.
   */
  private async recordRefusal(resetId: string, request: ResetRequest, err: PlanStaleError): Promise<void> {
    const { store, clock } = this.ctx;
    const then = request.expectedPlanHash ? this.previews.get(request.expectedPlanHash) : undefined;
    const diff = then ? Object.fromEntries(Object.entries(err.plan.remove).flatMap(([t, n]) => (n !== then[t as keyof typeof then] ? [[t, n - then[t as keyof typeof then]]] : []))) : undefined;
    const now = clock.now().toISOString();
    try {
      await store.resets.startAudit({
        reset_id: resetId,
        started_at: now,
        finished_at: null,
        status: 'in_progress',
        reason: request.reason ?? null,
        actor_token_id: request.actorTokenId ?? null,
        plan_hash: err.plan.plan_hash,
        result: null,
      });
      const result = { refused: 'PLAN_STALE', expected_plan_hash: request.expectedPlanHash, plan: err.plan, ...(diff ? { diff } : {}) };
      await store.transaction((tx) => store.resets.finishAudit(tx, resetId, { finished_at: now, status: 'refused', result: JSON.stringify(result) }));
    } catch {
      // The caller still gets PLAN_STALE; a missing refusal record is not worth failing the answer for.
    }
  }

  /** The audit record's outcome and a keyed caller's stored answer commit together. */
  private async finishAudit(resetId: string, result: ResetResult, onCommit?: OnEffectCommit<ResetResult>): Promise<void> {
    const { store, clock, log } = this.ctx;
    try {
      await store.transaction(async (tx) => {
        await store.resets.finishAudit(tx, resetId, { finished_at: clock.now().toISOString(), status: result.status, result: JSON.stringify(result) });
        await onCommit?.(tx, result);
      });
      await log.write({
        level: result.ok ? 'info' : 'error',
        component: 'reset',
        error_code: result.ok ? undefined : 'RESET_PARTIAL_FAILURE',
        message: result.ok
          ? `runtime reset ${resetId} completed`
          : `runtime reset ${resetId} ended in partial failure: ${(result.errors ?? []).map((e) => `${e.scope}: ${e.message}`).join('; ')}`,
      });
    } catch {
      // The response still tells the caller everything; the audit row says in_progress, which the next reset marks interrupted.
    }
  }
}
