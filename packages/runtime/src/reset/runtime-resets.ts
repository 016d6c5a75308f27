/**
 * The runtime's resets (runtime.nuke): each apply runs through a ResetCoordinator, its outcome
 * record carries the reset.applied alert notice, and every listener (every open console) hears of
 * it after it ran, whatever its outcome.
 */
import type { Alerts } from '../alerts/alerts';
import type { OnEffectCommit } from '../effect-commit';
import { ResetCoordinator, type ResetPreviews, type ResetRequest, type ResetResult } from './reset-coordinator';
import type { ResetContext } from './reset-context';
import type { ResetLock } from './reset-lock';

/** What every open console hears after a reset was applied. */
export interface AppliedReset {
  reset_id: string;
  status: ResetResult['status'];
  finished_at: string;
  reason?: string;
  actor_token_id?: string;
}

export interface RuntimeResetsOptions {
  context: ResetContext;
  lock: ResetLock;
  alerts: Pick<Alerts, 'resetApplied'>;
  /** Bound on quiescence waiting for running handlers (the coordinator's default when absent). */
  drainTimeoutMs?: number;
}

export class RuntimeResets {
  private readonly listeners = new Set<(reset: AppliedReset) => void>();
  /** Reset previews this process served, by plan hash: a refused apply records what changed since. */
  private readonly previews: ResetPreviews = new Map();

  constructor(private readonly options: RuntimeResetsOptions) {}

  onReset(listener: (reset: AppliedReset) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async reset(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    const result = await this.run(request, onCommit);
    if (!request.dryRun) {
      const applied: AppliedReset = {
        reset_id: result.reset_id ?? '',
        status: result.status,
        finished_at: this.options.context.clock.now().toISOString(),
        ...(request.reason ? { reason: request.reason } : {}),
        ...(request.actorTokenId ? { actor_token_id: request.actorTokenId } : {}),
      };
      for (const listener of this.listeners) listener(applied);
    }
    return result;
  }

  private run(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    const { context, lock, alerts, drainTimeoutMs } = this.options;
    const coordinator = new ResetCoordinator(context, lock, { drainTimeoutMs, previews: this.previews });
    if (request.dryRun) return coordinator.run(request, onCommit);
    // The reset.applied notice commits with the reset's outcome record.
    return coordinator.run(request, async (tx, result) => {
      await alerts.resetApplied(tx, { reset_id: result.reset_id, status: result.status, reason: request.reason, cleaned: result.cleanup !== undefined && 'deleted' in result.cleanup && result.cleanup.deleted !== null });
      await onCommit?.(tx, result);
    });
  }
}
