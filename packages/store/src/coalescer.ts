/**
 * Coalescing: items added within one turn of the event loop are flushed as one batch, and a
 * batch that fails runs each of its items alone, so that a failure is answered to its own item
 * only. A batch of one is the single case: there is no second path for an item that came alone.
 *
 * Group commit (one transaction for the writes of a turn), ingress (one statement per table for
 * the publishes of a turn) and completion (one statement per step for the handlers that finished
 * in a turn) all write this way. The flush is scheduled with setImmediate, so every request read in
 * the same I/O phase joins the batch, and whatever arrives while it flushes forms the next one.
 */

export interface CoalescerOptions<T> {
  /** Writes a batch as one, answering its items; throws when the batch as a whole failed. */
  flush: (batch: T[]) => Promise<void>;
  /** Answers an item whose flush failed: its batch of one, or a batch that is not split (see splitAfter). */
  fail: (item: T, error: unknown) => void;
  /**
   * Whether a failed batch of several runs each item alone (the default), or fails every item
   * with the batch's error: for a failure that may have been applied all the same (a commit whose
   * answer was lost), where writing each again could write it twice.
   */
  splitAfter?: (error: unknown) => boolean;
  /** Items per batch at most; all that arrived by default. */
  maxBatch?: number;
  /** Batches flushing at once at most; the next starts when one ends. Unbounded by default. */
  parallel?: number;
}

const always = (): boolean => true;

export class Coalescer<T> {
  private pending: T[] = [];
  private scheduled = false;
  private active = 0;
  private readonly flush: (batch: T[]) => Promise<void>;
  private readonly fail: (item: T, error: unknown) => void;
  private readonly splitAfter: (error: unknown) => boolean;
  private readonly maxBatch: number;
  private readonly parallel: number;

  constructor(options: CoalescerOptions<T>) {
    this.flush = options.flush;
    this.fail = options.fail;
    this.splitAfter = options.splitAfter ?? always;
    this.maxBatch = options.maxBatch ?? Infinity;
    this.parallel = options.parallel ?? Infinity;
  }

  /** Queues `item` for the batch flushed on the next turn of the event loop. */
  add(item: T): void {
    this.pending.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.active >= this.parallel || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(this.flushPending);
  }

  /** Bound once, so that scheduling a flush makes no closure. */
  private readonly flushPending = (): void => {
    this.scheduled = false;
    while (this.active < this.parallel && this.pending.length > 0) {
      let batch: T[];
      if (this.pending.length <= this.maxBatch) {
        batch = this.pending;
        this.pending = [];
      } else {
        batch = this.pending.splice(0, this.maxBatch);
      }
      if (this.parallel === Infinity) {
        void this.run(batch);
      } else {
        this.active++;
        void this.run(batch).finally(this.batchEnded);
      }
    }
  };

  private readonly batchEnded = (): void => {
    this.active--;
    this.schedule();
  };

  /** Flushes `batch` as one; when that fails, each of its items alone (or all fail, see splitAfter). */
  private async run(batch: T[]): Promise<void> {
    try {
      await this.flush(batch);
    } catch (error) {
      if (batch.length === 1 || !this.splitAfter(error)) {
        for (const item of batch) this.fail(item, error);
        return;
      }
      await Promise.all(batch.map((item) => this.run([item])));
    }
  }
}
