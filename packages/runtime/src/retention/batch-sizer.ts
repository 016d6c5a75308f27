/**
 * How many items retention takes per batch: at most its setting, fewer while batches take longer
 * than a target. On SQLite a batch's select, deletes and commit run on the event loop and hold the
 * only writer, so a publish or a ping that arrives meanwhile waits for the whole batch; a batch
 * bounded by time keeps that wait short whatever a run holds, and grows back where batches are
 * cheap. Where writers run concurrently (PostgreSQL) a batch waits on the database, not the event
 * loop, and holds no lock a publish needs: its batches stay at the setting (`boundedByTime`
 * false). Bounded there too, every batch's round trips took longer than the target, batches fell
 * to one run each, and a pass removed about 130 events/s instead of its rate.
 */

/** A batch that takes longer than this halves the next; one under half of it doubles the next. */
export const BATCH_TARGET_MS = 8;

export class BatchSizer {
  private current: number;

  constructor(
    private readonly most: number,
    private readonly boundedByTime = true,
  ) {
    this.current = most;
  }

  get size(): number {
    return this.current;
  }

  /** Records how long the last batch (of `size` items asked) took, and sizes the next. */
  took(ms: number): void {
    if (!this.boundedByTime) return;
    if (ms > BATCH_TARGET_MS) this.current = Math.max(1, Math.floor(this.current / 2));
    else if (ms < BATCH_TARGET_MS / 2) this.current = Math.min(this.most, this.current * 2);
  }
}
