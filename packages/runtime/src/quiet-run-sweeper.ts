/**
 * Settles runs whose chain went quiet without a completion noticing (another process, a crash).
 */
import { settleRunIfDone } from './event-store';
import type { RunPosition } from '@switchboard/store';
import type { RuntimeServices } from './handler';

/**
 * Running runs one quiet-run sweep looks at (each probes the run's open deliveries). Sweeps run
 * every 2 s on an idle server, so a run left unsettled waits (running runs / this) × 2 s at most.
 */
export const QUIET_SWEEP_WINDOW = 1_000;

export class QuietRunSweeper {
  /** Where the next sweep starts (undefined: at the oldest running run). */
  private sweepFrom: RunPosition | undefined;

  constructor(
    private readonly services: RuntimeServices,
    private readonly window = QUIET_SWEEP_WINDOW,
  ) {}

  /**
   * Looks at a window of running runs per call, the next ones each time, from the start again
   * after the last: a sweep's cost stays bounded however many runs wait on a backlog.
   */
  async settleQuietRuns(): Promise<number> {
    const { store, clock, bundle } = this.services;
    const { quiet: runIds, next } = await store.deliveries.quietRuns(this.sweepFrom, this.window);
    this.sweepFrom = next;
    let settled = 0;
    for (const runId of runIds) {
      const s = await store.transaction((trx) => settleRunIfDone(store, trx, bundle, runId, clock.now()));
      if (s) settled++;
    }
    return settled;
  }
}
