/**
 * Runtime ingress: publishing events, pausing and resuming. While paused, a publish is accepted
 * and written durably (a `queued` run and an ingress_queue row) before it is acknowledged.
 * Resume releases queued items in bounded batches, one transaction per batch, yielding to the event
 * loop between batches so the process keeps answering while a large queue drains. Each item's
 * first statement is a conditional UPDATE (queued → released): two concurrent resumes, in one
 * process or several, or a resume repeated after a crash, release every item exactly once.
 */
import { RpcError } from '@switchboard/contract';
import { Coalescer, failedAsGroup, refusedByGuard, type Clock, type QueuedPublish, type Store, type StoreTx } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import type { OnEffectCommit } from './effect-commit';
import { insertEventWithDeliveries, settleRunIfDone } from './event-store';
import type { ClaimedDelivery } from './claimed-delivery';
import { INGRESS_KEY, writePublishes, type GuardWithNext, type LocalDispatch, type PublishInput, type PublishResult, type PublishWriteDeps, type QueuedPublishCall } from './publish-writes';
import { validatePayload } from './payload-schema';
import type { RuntimeLog } from './runtime-log';
import { noopRuntimeObserver, type RuntimeObserver } from './observer';
import { endPublishSpan, startPublishSpan, traceparentOf } from './tracing';

export type IngressState = 'open' | 'paused';
export type { LocalDispatch, PublishInput, PublishResult };

/** How long publishes read the guard first after one sent with the inserts refused a batch. */
const READ_GUARD_FIRST_MS = 1_000;

/** Items released per transaction by resume; bounds how long one batch holds the event loop. */
const RELEASE_BATCH_SIZE = 25;

/**
 * Run first in each write's transaction (see ResetLock.guardWrites); `asReset` names the reset
 * whose own step the write is.
 */
export type WriteGuard = (asReset?: string) => (tx: StoreTx) => Promise<void>;

const unguarded: WriteGuard = () => async () => undefined;

/**
 * For publishes, which are never a reset's own step; where it gives a function (PostgreSQL), that
 * function sends the guard with the transaction's next statement and fails it (refusedByGuard)
 * while a reset holds the lock or `refuse.key` has `refuse.value`, so a write that can run again
 * needs no round trip for the guard (see ResetLock.guardWritesWithNext).
 */
export type WriteGuardWithNext = () => GuardWithNext | undefined;

const readFirst: WriteGuardWithNext = () => undefined;

/** Who changes ingress. A reset's own steps name the reset: their writes pass its lock. */
export interface IngressChange<O> {
  actor?: string;
  onCommit?: OnEffectCommit<O>;
  asReset?: string;
}

export interface IngressOptions {
  store: Store;
  bundle: LoadedBundle;
  clock: Clock;
  log: RuntimeLog;
  /** Called when a publish wrote deliveries that wait for a claim. */
  onEventWritten: () => void;
  guardWrites?: WriteGuard;
  /** This process's dispatcher, which runs what a publish writes already leased to it. */
  localDispatch?: LocalDispatch;
  guardWritesWithNext?: WriteGuardWithNext;
  observer?: RuntimeObserver;
}

export class Ingress {
  private readonly store: Store;
  private readonly bundle: LoadedBundle;
  private readonly clock: Clock;
  private readonly log: RuntimeLog;
  private readonly onEventWritten: () => void;
  private readonly guardWrites: WriteGuard;
  private readonly localDispatch: LocalDispatch | undefined;
  private readonly guardWritesWithNext: WriteGuardWithNext;
  private readonly observer: RuntimeObserver;
  /** What writePublishes needs of this ingress. */
  private readonly writes: PublishWriteDeps;

  constructor(options: IngressOptions) {
    this.store = options.store;
    this.bundle = options.bundle;
    this.clock = options.clock;
    this.log = options.log;
    this.onEventWritten = options.onEventWritten;
    this.guardWrites = options.guardWrites ?? unguarded;
    this.localDispatch = options.localDispatch;
    this.guardWritesWithNext = options.guardWritesWithNext ?? readFirst;
    this.observer = options.observer ?? noopRuntimeObserver;
    this.writes = { store: this.store, bundle: this.bundle, clock: this.clock, localDispatch: this.localDispatch };
    // A publish group reads it right after its reset guard: in the guard's statement.
    this.store.runtimeState.readAlongHeld(INGRESS_KEY);
  }

  /** Read in `tx` when given, so a publish sees the state its own transaction sees. */
  async state(tx?: StoreTx): Promise<IngressState> {
    return (await this.store.runtimeState.get(INGRESS_KEY, tx)) === 'paused' ? 'paused' : 'open';
  }

  private async setState(tx: StoreTx, state: IngressState): Promise<void> {
    this.store.changes.mark(tx, 'ingress');
    await this.store.runtimeState.set(INGRESS_KEY, state, tx);
    await this.store.runtimeState.set('ingress_changed_at', this.clock.now().toISOString(), tx);
  }

  /** Validates against the boot bundle's catalog; throws RpcError the API maps to its error codes. */
  validate(input: PublishInput): Record<string, unknown> {
    if (input.bundle_ref && input.bundle_ref.fingerprint !== this.bundle.fingerprint) {
      throw new RpcError('BUNDLE_MISMATCH', 'bundle_ref.fingerprint does not match the bundle loaded at boot; per-run bundles are not supported in v1', {
        expected: this.bundle.fingerprint,
        got: input.bundle_ref.fingerprint,
      });
    }
    const def = this.bundle.definition.events[input.event_name];
    if (!def) {
      throw new RpcError('UNKNOWN_EVENT', `"${input.event_name}" is not in the event catalog of ${this.bundle.definition.name}`, {
        event_name: input.event_name,
        known: Object.keys(this.bundle.definition.events),
      });
    }
    const payload = input.payload ?? {};
    const issues = validatePayload(def.payload_schema, payload);
    if (issues.length > 0) throw new RpcError('INVALID_PARAMS', `payload does not match the schema of ${input.event_name}`, { issues });
    return payload;
  }

  /**
   * Durable before it returns: the run, event and deliveries (or the queue entry) are committed.
   * Publishes that arrive in the same turn of the event loop are written together (see
   * publishTogether); a refused one is refused alone.
   */
  async publish(input: PublishInput, onCommit?: OnEffectCommit<PublishResult>): Promise<PublishResult> {
    const payload = this.validate(input);
    const guard = this.guardWrites();
    const guardWithNext = this.guardWritesWithNext();
    const span = startPublishSpan(input.event_name);
    const traceparent = traceparentOf(span);
    const written = new Promise<PublishResult>((resolve, reject) => {
      this.publishes.add({ input, payload, guard, guardWithNext, onCommit, traceparent, resolve, reject });
    });
    // Untraced (tracing off), the span is a no-op with nothing to end.
    return traceparent === undefined ? written : endPublishSpan(span, written);
  }

  private readonly publishes = new Coalescer<QueuedPublishCall>({
    flush: (batch) => this.publishBatch(batch),
    fail: (p, error) => p.reject(error),
    // A failed commit may have landed (the connection died while it ran): writing the batch again
    // could store each publish twice, so every caller gets the failure, as one publish alone would.
    // Otherwise one was refused: each goes alone, so the refusal is its own.
    splitAfter: (error) => !failedAsGroup(error),
  });
  /**
   * Until then (performance.now()), publishes read the guard first: one refused with the guard
   * sent with its inserts found a reset or paused ingress, which last seconds to hours, and every
   * batch meanwhile would otherwise be written, refused and written again.
   */
  private readGuardFirstUntil = 0;

  /**
   * `readGuardFirst`: read the reset lock and the ingress state before writing. Otherwise, where
   * every publish of the batch has a guardWithNext, the guard goes with the inserts; a batch it
   * refuses (a reset, or ingress paused, on any server) runs again reading them, and is refused or
   * queued then.
   */
  private async publishBatch(batch: QueuedPublishCall[], readGuardFirst = false): Promise<void> {
    const opened = batch.reduce((n, p) => n + (this.bundle.definition.events[p.input.event_name]?.subscribers.length ?? 0), 0);
    const reserved = this.localDispatch?.reserve(opened) ?? 0;
    readGuardFirst ||= performance.now() < this.readGuardFirstUntil;
    const guardWithNext = readGuardFirst ? undefined : batch.every((p) => p.guardWithNext) ? batch[0]!.guardWithNext : undefined;
    let done: { results: PublishResult[]; leased: ClaimedDelivery[] };
    try {
      done = await this.store.transactionInGroup((trx) => writePublishes(this.writes, trx, batch, reserved, guardWithNext));
    } catch (error) {
      this.localDispatch?.runReserved(reserved, []);
      // Refused before anything was written: the guard fails the transaction's first write.
      if (guardWithNext && refusedByGuard(error)) {
        this.readGuardFirstUntil = performance.now() + READ_GUARD_FIRST_MS;
        return this.publishBatch(batch, true);
      }
      throw error;
    }
    this.localDispatch?.runReserved(reserved, done.leased);
    // Deliveries this process had no room for wait for a claim (here or on another server).
    if (done.results.some((r) => r.status === 'running') && done.leased.length < opened) this.onEventWritten();
    batch.forEach((p, i) => {
      this.observer.onPublish(p.input.event_name, done.results[i]!.status);
      p.resolve(done.results[i]!);
    });
  }

  async pause(reason: string | undefined, { actor = 'runtime', onCommit, asReset }: IngressChange<IngressState> = {}): Promise<IngressState> {
    const before = await this.state();
    const guard = this.guardWrites(asReset);
    await this.store.transaction(async (trx) => {
      await guard(trx);
      await this.setState(trx, 'paused');
      if (before !== 'paused') {
        await this.log.write({ level: 'info', component: 'ingress', message: `ingress paused by ${actor}${reason ? `: ${reason}` : ''}; publishes are queued until resume` }, trx);
      }
      await onCommit?.(trx, 'paused');
    });
    return 'paused';
  }

  /** Opens ingress, then releases every queued item. Returns how many this call released. */
  async resume({ actor = 'runtime', onCommit, asReset }: IngressChange<number> = {}): Promise<number> {
    const before = await this.state();
    const guard = this.guardWrites(asReset);
    await this.store.transaction(async (trx) => {
      await guard(trx);
      await this.setState(trx, 'open');
      if (before !== 'open') await this.log.write({ level: 'info', component: 'ingress', message: `ingress resumed by ${actor}` }, trx);
    });
    const released = await this.releaseQueued(asReset);
    // The answer commits with the last write of the resume; items released before a crash stay released once.
    await this.store.transaction(async (trx) => {
      await guard(trx);
      if (released > 0) await this.log.write({ level: 'info', component: 'ingress', message: `released ${released} queued publish(es) to dispatch` }, trx);
      await onCommit?.(trx, released);
    });
    return released;
  }

  queueDepth(): Promise<number> {
    return this.store.runWrites.queueDepth();
  }

  /**
   * Releases queued items while ingress is open; safe to run concurrently and to re-run after a
   * crash. A batch is one transaction (one fsync) and short enough (RELEASE_BATCH_SIZE items, tens
   * of milliseconds) that requests waiting behind it are answered between batches.
   */
  async releaseQueued(asReset?: string, batchSize = RELEASE_BATCH_SIZE): Promise<number> {
    let released = 0;
    const guard = this.guardWrites(asReset);
    for (;;) {
      if ((await this.state()) === 'paused') return released;
      const batch = await this.store.runWrites.queued(batchSize);
      if (batch.length === 0) return released;
      released += await this.store.transaction(async (trx) => {
        await guard(trx);
        // Paused since the read above (a reset on another server): release nothing more.
        if ((await this.state(trx)) === 'paused') return 0;
        let n = 0;
        for (const item of batch) if (await this.releaseOne(trx, item)) n++;
        return n;
      });
      this.onEventWritten();
      // The SQLite driver is synchronous and the store's awaits are microtasks: only a macrotask turn lets I/O in.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private async releaseOne(trx: StoreTx, item: QueuedPublish): Promise<boolean> {
    const { store } = this;
    const now = this.clock.now();
    if (!(await store.runWrites.releaseQueued(trx, item.queue_id, now.toISOString()))) return false;
    // A run cancelled while queued (reset quiescence) is released without dispatching anything.
    if (!(await store.runWrites.startQueued(trx, item.run_id))) return true;
    const written = await insertEventWithDeliveries(this.store, trx, this.bundle, now, {
      event_id: item.event_id,
      event_name: item.event_name,
      payload: JSON.parse(item.payload) as Record<string, unknown>,
      entity_id: item.entity_id,
      run_id: item.run_id,
      source: item.source,
      chain_depth: 0,
      parent_event_id: null,
      traceparent: item.traceparent ?? undefined,
    });
    if (written.delivery_ids.length === 0) await settleRunIfDone(store, trx, this.bundle, item.run_id, now);
    return true;
  }

  /** Cancels queued publishes (their runs become cancelled); for reset quiescence. */
  async cancelQueued(): Promise<number> {
    return this.store.transaction((trx) => this.store.runWrites.cancelQueued(trx, this.clock.now().toISOString()));
  }
}
