/**
 * The dispatcher claims due deliveries with a lease, runs their handlers and records the outcome.
 *
 * Claiming is a conditional UPDATE (status pending and due, or in_progress with an expired lease),
 * so when several processes share one database exactly one of them wins each delivery; the
 * completion is conditional on still holding that lease (owner and attempt number), and a
 * handler's writes and emitted events commit in the same transaction as the status flip. A
 * process that dies mid-handler leaves a lease that expires, and the delivery is claimed again.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { DeliveryLease, EventsTable, RunPosition, Selectable, StoreTx } from '@switchboard/store';
import { deadLetterCauseKey } from '@switchboard/store';
import { insertEmittedEvent, prepareEvent, settleRunIfDone, settleRunsIfDone, type EmittedEvent, type NewEvent, type PreparedEvent } from './event-store';
import { HandlerFailure, asHandlerFailure } from './handler-failure';
import type { DeliveryRecord, Emit, EventRecord, HandlerOutcome, RuntimeServices, SubscriberHandler } from './handler';
import { newId } from './ids';
import { validatePayload } from './payload-schema';
import { recordDeliveryOutcome, recordPublishedEvent, startDeliverySpan, startEmitSpan, traceparentOf, withSpan, type Span } from './tracing';

export interface DispatcherOptions {
  /**
   * Handlers run at once by this process: 64 by default. Handlers mostly wait (on models, tools);
   * and claims and completions are batched by this many, so with fewer a busy store spends a
   * statement on every few deliveries (16 drained 1,300 no-op deliveries/s on PostgreSQL, 64
   * drained 3,000/s in the same in-process probe).
   */
  concurrency?: number;
  /** Poll interval while work exists; doubles up to idlePollMaxMs while idle. */
  pollMs?: number;
  idlePollMaxMs?: number;
  /** Lease owner id; unique per process by default. */
  owner?: string;
  /** Running runs one quiet-run sweep looks at (QUIET_SWEEP_WINDOW by default). */
  quietSweepWindow?: number;
}

/** A claimed delivery with its event, read with the claim. */
export type ClaimedDelivery = DeliveryRecord & { event: EventRecord };

/** What a delivery this process leases as it writes it starts with (see Dispatcher.reserve). */
export interface LeaseAtWrite {
  status: 'in_progress';
  attempts: 1;
  lease_owner: string;
  lease_expires_at: string;
}

export function toEventRecord(e: Selectable<EventsTable>): EventRecord {
  return {
    event_id: e.event_id,
    event_name: e.event_name,
    payload: JSON.parse(e.payload) as Record<string, unknown>,
    entity_id: e.entity_id,
    run_id: e.run_id,
    chain_depth: e.chain_depth,
    created_at: e.created_at,
    seq: Number(e.seq),
    traceparent: e.traceparent,
  };
}

/** A handler's result waiting to complete together with the others that finished at the same time. */
interface QueuedCompletion {
  d: DeliveryRecord;
  event: EventRecord;
  outcome: HandlerOutcome;
  /** The delivery's span: the events it emits continue its trace. */
  span: Span;
  /** With the number of deliveries its emitted events opened. */
  resolve: (opened: number) => void;
  reject: (error: unknown) => void;
}

class LeaseLost extends Error {
  constructor(deliveryId: string) {
    super(`lease on ${deliveryId} was lost before completion`);
  }
}

export const MAX_BACKOFF_MS = 60_000;

/** Least time between two claims woken by other nodes' writes. */
const OTHER_NODE_WAKE_MS = 100;

/**
 * Running runs one quiet-run sweep looks at (each probes the run's open deliveries). Sweeps run
 * every 2 s on an idle node, so a run left unsettled waits (running runs / this) × 2 s at most.
 */
const QUIET_SWEEP_WINDOW = 1_000;

export function backoffFor(baseMs: number, attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempt - 1));
}

export function subscriberKey(type: string, id: string): string {
  return `${type}:${id}`;
}

export class Dispatcher {
  readonly owner: string;
  private readonly concurrency: number;
  private loopTurns = 0;
  private readonly pollMs: number;
  private readonly idlePollMaxMs: number;
  private running = false;
  private loopPromise: Promise<void> | undefined;
  private claimsPaused = false;
  private readonly inFlight = new Set<Promise<void>>();
  private wakeUp: (() => void) | undefined;
  private lastSweep = 0;
  /** Where the next quiet-run sweep starts (undefined: at the oldest running run). */
  private sweepFrom: RunPosition | undefined;
  private readonly quietSweepWindow: number;
  /** The lock row that stops claims while held ('' for none). */
  private claimLockKey = '';
  private readonly completions: QueuedCompletion[] = [];
  private completionsScheduled = false;
  /** Slots taken by reserve() for deliveries not committed yet. */
  private reserved = 0;
  /** Callers of stop() waiting for the reservations still open to end. */
  private reservationWaiters: (() => void)[] = [];
  /** Deliveries whose handler has not answered yet. */
  private handlersRunning = 0;
  private wakeOnFinish = true;
  private otherNodeWake: NodeJS.Timeout | undefined;
  /** wakeToClaim() was called while no sleep was there to end. */
  private claimAgain = false;
  private lastOtherNodeWake = 0;

  constructor(
    private readonly services: RuntimeServices,
    private readonly handlers: Map<string, SubscriberHandler>,
    options: DispatcherOptions = {},
  ) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.concurrency = options.concurrency ?? 64;
    this.pollMs = options.pollMs ?? 25;
    this.idlePollMaxMs = options.idlePollMaxMs ?? 250;
    this.quietSweepWindow = options.quietSweepWindow ?? QUIET_SWEEP_WINDOW;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get isRunning(): boolean {
    return this.running;
  }

  get claimsArePaused(): boolean {
    return this.claimsPaused;
  }

  /**
   * Claims nothing while the `runtime_state` row `key` holds a lock (the reset lock, taken on any
   * node): each claim reads it in the claim's own statement or transaction.
   */
  stopClaimsWhileLocked(key: string): void {
    this.claimLockKey = key;
  }

  /** Stops claiming new deliveries (in-flight handlers finish); used by reset quiescence. */
  pauseClaims(): void {
    this.claimsPaused = true;
  }

  resumeClaims(): void {
    this.claimsPaused = false;
    this.wake();
  }

  /**
   * Takes up to `wanted` free handler slots for deliveries this process is about to write (a
   * publish's), so that they are written already leased to it (leaseAtWrite) and run as soon as
   * they commit (runReserved): no claim statement, no wait for a wake-up. Other nodes claim what
   * this one has no room for, as before. None while stopped or while claims are paused (reset
   * quiescence). Every reservation ends with runReserved, with what was written or nothing.
   */
  reserve(wanted: number): number {
    if (!this.running || this.claimsPaused || wanted <= 0) return 0;
    const taken = Math.max(0, Math.min(wanted, this.room()));
    this.reserved += taken;
    return taken;
  }

  /** The lease a reserved delivery is written with: its first attempt, held by this process. */
  leaseAtWrite(now: Date): LeaseAtWrite {
    const until = new Date(now.getTime() + this.services.bundle.definition.runtime.lease_ms).toISOString();
    return { status: 'in_progress', attempts: 1, lease_owner: this.owner, lease_expires_at: until };
  }

  /** Ends a reservation of `reserved` slots: runs the deliveries written with its leases (committed), if any. */
  runReserved(reserved: number, written: readonly ClaimedDelivery[]): void {
    this.reserved -= reserved;
    for (const d of written) this.track(d);
    if (written.length < reserved) this.wake();
    if (this.reserved === 0) for (const resolve of this.reservationWaiters.splice(0)) resolve();
  }

  /**
   * Another node wrote events or deliveries: claim soon, but at most every OTHER_NODE_WAKE_MS. The
   * node that publishes runs what it has room for itself (reserve), so most of these claims find
   * nothing, and each costs a statement; a delivery that waits for this spacing waits no longer
   * than for the idle poll it shortens.
   */
  wakeForOtherNode(): void {
    if (this.otherNodeWake) return;
    const wait = Math.max(0, this.lastOtherNodeWake + OTHER_NODE_WAKE_MS - performance.now());
    this.otherNodeWake = setTimeout(() => {
      this.otherNodeWake = undefined;
      this.lastOtherNodeWake = performance.now();
      this.wake();
    }, wait);
    this.otherNodeWake.unref();
  }

  /**
   * Another node wrote deliveries that wait for a claim: claim now, or, when a claim is in flight
   * (it may have read the rows before that write committed), once more right after it.
   */
  wakeToClaim(): void {
    if (this.wakeUp) this.wake();
    else this.claimAgain = true;
  }

  /** Called after anything that creates deliveries, so they run without waiting for the next poll. */
  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopPromise = this.loop();
  }

  /** Stops the loop and waits for in-flight handlers to finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopPromise;
    this.loopPromise = undefined;
    // A publish that reserved slots before the stop may still be committing: its deliveries are
    // leased to this process and run once it commits. Wait for them too, so that no handler of
    // this dispatcher runs after stop() (the server closes the store next).
    while (this.reserved > 0) await new Promise<void>((resolve) => this.reservationWaiters.push(resolve));
    await Promise.allSettled([...this.inFlight]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Iterations of the claim loop so far: a caller can wait until the loop has had its chance to act. */
  get turns(): number {
    return this.loopTurns;
  }

  private async loop(): Promise<void> {
    let idleDelay = this.pollMs;
    while (this.running) {
      this.loopTurns++;
      let claimed = 0;
      // Claims wait until at most half the slots are busy: one claim per freed slot would make a
      // statement per delivery or two, and the claim is the costliest statement of the path.
      const room = this.room();
      const roomToClaim = room >= this.concurrency / 2;
      // A finishing handler wakes the loop only while it waits for room; once a claim came back
      // short there is nothing due, and a claim per completion would find nothing each time.
      this.wakeOnFinish = !roomToClaim;
      if (!this.claimsPaused && roomToClaim) {
        try {
          const batch = await this.claimDue(room);
          claimed = batch.length;
          for (const d of batch) this.track(d);
        } catch (err) {
          await this.safeLog('warn', 'CLAIM_FAILED', `claiming deliveries failed: ${(err as Error).message}`);
        }
      }
      if (claimed > 0) {
        idleDelay = this.pollMs;
        // The store answers synchronously and its awaits are microtasks: without a macrotask turn
        // here, a busy dispatcher would keep HTTP requests waiting until the backlog is gone.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.room() >= this.concurrency / 2) continue;
        this.wakeOnFinish = true;
        await this.sleep(this.pollMs);
        continue;
      }
      if (Date.now() - this.lastSweep > 2_000 && this.inFlight.size === 0) {
        this.lastSweep = Date.now();
        await this.settleQuietRuns().catch(() => undefined);
      }
      if (this.claimAgain) {
        this.claimAgain = false;
        continue;
      }
      await this.sleep(idleDelay);
      idleDelay = Math.min(idleDelay * 2, this.idlePollMaxMs);
    }
  }

  /**
   * Deliveries that may be taken now: handlers running are bounded by the concurrency, and those
   * whose handler finished but whose outcome is still being committed by twice that. So the next
   * claim overlaps the commit of the last batch instead of waiting for it.
   */
  private room(): number {
    return Math.max(0, Math.min(this.concurrency - this.handlersRunning - this.reserved, 2 * this.concurrency - this.inFlight.size - this.reserved));
  }

  /** Ends a delivery's handler slot (its outcome may still be committing). */
  private handlerDone(): void {
    this.handlersRunning--;
    if (this.wakeOnFinish) this.wake();
  }

  private track(d: ClaimedDelivery): Promise<void> {
    const p: Promise<void> = this.process(d)
      .catch((err) => this.safeLog('error', 'DISPATCH_FAULT', `delivery ${d.delivery_id}: ${(err as Error).message}`))
      .finally(() => {
        this.inFlight.delete(p);
        if (this.wakeOnFinish) this.wake();
      });
    this.inFlight.add(p);
    return p;
  }

  private async safeLog(level: 'warn' | 'error', code: string, message: string): Promise<void> {
    try {
      await this.services.log.write({ level, component: 'dispatcher', error_code: code, message });
    } catch {
      // The store itself is failing; the next loop iteration retries the work anyway.
    }
  }

  /**
   * Claims up to `limit` due deliveries (each row goes to one claimer, on any node; see
   * DeliveryRepository.claimDueUnlessLocked) with their events. Claims nothing while a reset holds
   * the store.
   */
  async claimDue(limit: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const { store, clock, bundle } = this.services;
    const now = clock.now();
    const nowIso = now.toISOString();
    const leaseUntil = new Date(now.getTime() + bundle.definition.runtime.lease_ms).toISOString();
    const { claimed } = await store.deliveries.claimDueUnlessLocked(this.claimLockKey, this.owner, leaseUntil, nowIso, limit);
    for (const row of claimed) {
      if (!row.reclaimed_from) continue;
      await this.services.log.write({
        level: 'warn',
        component: 'dispatcher',
        error_code: 'LEASE_EXPIRED',
        message: `delivery ${row.delivery_id} to ${row.subscriber_id} reclaimed: the lease of ${row.reclaimed_from.owner ?? 'an earlier claimer'} expired before it finished`,
        delivery_id: row.delivery_id,
        event_id: row.event_id,
        run_id: row.run_id,
      });
    }
    return claimed.map(({ reclaimed_from: _, event, ...d }) => ({ ...d, subscriber_type: d.subscriber_type as 'node' | 'agent', event: toEventRecord(event) }));
  }

  /** Runs one claimed delivery to its recorded outcome. */
  async process(claimed: ClaimedDelivery): Promise<void> {
    this.handlersRunning++;
    let slotHeld = true;
    const span = startDeliverySpan(claimed, this.owner);
    try {
      await withSpan(span, () =>
        this.runToOutcome(claimed, span, () => {
          if (slotHeld) this.handlerDone();
          slotHeld = false;
        }),
      );
    } finally {
      if (slotHeld) this.handlerDone();
      span.end();
    }
  }

  /** `handlerFinished` is called once the handler has answered, before its outcome is recorded. */
  private async runToOutcome(claimed: ClaimedDelivery, span: Span, handlerFinished: () => void): Promise<void> {
    const { bundle } = this.services;
    const { event, ...d } = claimed;
    const handler = this.handlers.get(subscriberKey(d.subscriber_type, d.subscriber_id));
    let failure: HandlerFailure | undefined;
    let outcome: HandlerOutcome | undefined;
    if (!handler) {
      failure = new HandlerFailure(`no ${d.subscriber_type} "${d.subscriber_id}" in bundle ${bundle.definition.name}@${bundle.definition.version}`, {
        failureType: 'unknown_subscriber',
        reasonCode: 'unknown_subscriber',
        retryable: false,
      });
    } else if (d.attempts > d.max_attempts) {
      failure = new HandlerFailure(`the last attempt did not finish within its ${bundle.definition.runtime.lease_ms} ms lease (the process handling it stopped)`, {
        failureType: 'timeout',
        reasonCode: 'lease_expired',
        retryable: false,
      });
    } else {
      const timeoutMs = bundle.definition.runtime.handler_timeout_ms;
      // Made when the handler first reads its signal: most never do, and an AbortController
      // was about 5% of a node's CPU per delivery while draining no-op deliveries.
      let controller: AbortController | undefined;
      let timeout: HandlerFailure | undefined;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timeout = new HandlerFailure(`handler ${d.subscriber_id} did not finish within ${timeoutMs} ms`, { failureType: 'timeout', reasonCode: 'handler_timeout' });
          controller?.abort(timeout);
          reject(timeout);
        }, timeoutMs);
      });
      const context = {
        services: this.services,
        delivery: d,
        event,
        attempt: d.attempts,
        get signal(): AbortSignal {
          if (!controller) {
            controller = new AbortController();
            if (timeout) controller.abort(timeout);
          }
          return controller.signal;
        },
      };
      const started = performance.now();
      try {
        outcome = await Promise.race([handler.handle(context), timedOut]);
      } catch (err) {
        failure = asHandlerFailure(err);
      } finally {
        clearTimeout(timer);
        this.services.observer.onHandlerDuration(d.subscriber_id, (performance.now() - started) / 1000);
      }
    }

    handlerFinished();
    if (!failure) {
      try {
        const opened = await this.completeTogether(d, event, outcome ?? {}, span);
        this.services.observer.onDeliveryOutcome(d.subscriber_id, 'delivered');
        recordDeliveryOutcome(span, 'delivered');
        if (opened > 0) this.wake();
        return;
      } catch (err) {
        if (err instanceof LeaseLost) {
          recordDeliveryOutcome(span, 'lease_lost', err.message);
          await this.safeLog('warn', 'LEASE_LOST', err.message);
          return;
        }
        failure = asHandlerFailure(err);
      }
    }
    await this.fail(d, event, failure, span);
  }

  /**
   * `counter`: deliveries the emitted events opened, and those of them in the delivery's own run. `write` writes
   * the event, or holds it to write with the events of others completing at the same time.
   */
  private makeEmit(d: DeliveryRecord, event: EventRecord, counter: { opened: number; openedInRun: number }, write: (e: NewEvent) => Promise<EmittedEvent>, span: Span): Emit {
    const { bundle } = this.services;
    return async (eventName, payload, options) => {
      const depth = event.chain_depth + 1;
      const max = bundle.definition.runtime.max_chain_depth;
      if (depth > max) {
        throw new HandlerFailure(`${d.subscriber_id} tried to emit ${eventName} at chain depth ${depth}, over the bundle's max_chain_depth of ${max}`, {
          failureType: 'chain_depth_exceeded',
          reasonCode: 'chain_depth_exceeded',
          retryable: false,
          errorCode: 'CHAIN_DEPTH_EXCEEDED',
        });
      }
      const def = bundle.definition.events[eventName];
      if (!def) throw new HandlerFailure(`${d.subscriber_id} emitted unknown event ${eventName}`, { reasonCode: 'unknown_event', retryable: false });
      const issues = validatePayload(def.payload_schema, payload);
      if (issues.length > 0) {
        throw new HandlerFailure(`${d.subscriber_id} emitted ${eventName} with an invalid payload: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, {
          reasonCode: 'emit_payload_invalid',
          retryable: false,
        });
      }
      const runId = event.run_id ?? event.event_id;
      const emitSpan = startEmitSpan(span, eventName);
      const written = await write({
        event_name: eventName,
        payload,
        entity_id: options?.entity_id !== undefined ? options.entity_id : event.entity_id,
        run_id: runId,
        source: `${d.subscriber_type}:${d.subscriber_id}`,
        chain_depth: depth,
        parent_event_id: event.event_id,
        traceparent: traceparentOf(span),
      });
      if (emitSpan) {
        recordPublishedEvent(emitSpan, written.event_id, runId);
        emitSpan.end();
      }
      counter.opened += written.delivery_ids.length;
      if (runId === d.run_id) counter.openedInRun += written.delivery_ids.length;
      return written;
    };
  }

  private leaseOf(d: DeliveryRecord): DeliveryLease {
    return { delivery_id: d.delivery_id, owner: this.owner, attempts: d.attempts };
  }

  /**
   * Completes a handler's result together with the others that finish in the same turn of the
   * event loop: one group-commit member marks them all delivered, writes every event they emitted
   * and settles their runs, a statement for each step rather than one each per delivery. When one
   * of them fails (its apply or emit throws), each is completed alone instead, so the failure is
   * that one's own and the others still commit.
   */
  private completeTogether(d: DeliveryRecord, event: EventRecord, outcome: HandlerOutcome, span: Span): Promise<number> {
    return new Promise((resolve, reject) => {
      this.completions.push({ d, event, outcome, span, resolve, reject });
      if (this.completionsScheduled) return;
      this.completionsScheduled = true;
      setImmediate(() => {
        this.completionsScheduled = false;
        void this.completeBatch(this.completions.splice(0));
      });
    });
  }

  private async completeBatch(batch: QueuedCompletion[]): Promise<void> {
    const alone = (c: QueuedCompletion) => this.complete(c.d, c.event, c.outcome, c.span).then(c.resolve, c.reject);
    if (batch.length === 1) return alone(batch[0]!);
    let done: { opened: (number | undefined)[]; unsettled: string[] };
    try {
      done = await this.services.store.transactionInGroup((trx) => this.completeMany(trx, batch));
    } catch {
      await Promise.all(batch.map(alone));
      return;
    }
    await this.settleAfterCommit(done.unsettled);
    batch.forEach((c, i) => {
      const opened = done.opened[i];
      if (opened === undefined) c.reject(new LeaseLost(c.d.delivery_id));
      else c.resolve(opened);
    });
  }

  /** The batch's writes; `opened` is undefined for a delivery whose lease was lost (nothing of it is applied). */
  private async completeMany(trx: StoreTx, batch: QueuedCompletion[]): Promise<{ opened: (number | undefined)[]; unsettled: string[] }> {
    const { store, clock, bundle } = this.services;
    const now = clock.now();
    const held = await store.deliveries.markDeliveredMany(trx, this.owner, batch.map(({ d }) => ({ delivery_id: d.delivery_id, attempts: d.attempts })), now.toISOString());
    const events: PreparedEvent[] = [];
    const hold = async (e: NewEvent): Promise<EmittedEvent> => {
      const prepared = prepareEvent(bundle, now, e);
      events.push(prepared);
      return prepared.written;
    };
    const opened: (number | undefined)[] = [];
    const continued = new Set<string>();
    const ended = new Set<string>();
    for (const { d, event, outcome, span } of batch) {
      if (!held.has(d.delivery_id)) {
        opened.push(undefined);
        continue;
      }
      const counter = { opened: 0, openedInRun: 0 };
      await outcome.apply?.(trx, this.makeEmit(d, event, counter, hold, span));
      opened.push(counter.opened);
      if (d.run_id) (counter.openedInRun > 0 ? continued : ended).add(d.run_id);
    }
    // Written before the runs are checked: a run one of them continues is not quiet.
    await store.runWrites.appendEvents(trx, events, { seqs: false });
    const quiet = [...ended].filter((runId) => !continued.has(runId));
    const settled = await settleRunsIfDone(store, trx, bundle, quiet, now);
    return { opened, unsettled: quiet.filter((runId) => !settled.has(runId)) };
  }

  private async complete(d: DeliveryRecord, event: EventRecord, outcome: HandlerOutcome, span: Span): Promise<number> {
    const { store, clock, bundle } = this.services;
    const counter = { opened: 0, openedInRun: 0 };
    // Shares its commit with other completions and publishes that arrive together (group commit);
    // still one savepoint for the handler's writes, its emitted events and the status flip.
    const settledOrContinued = await store.transactionInGroup(async (trx) => {
      // A group that reruns its members in savepoints runs this again: count afresh.
      counter.opened = 0;
      counter.openedInRun = 0;
      const now = clock.now();
      await outcome.apply?.(trx, this.makeEmit(d, event, counter, (e) => insertEmittedEvent(store, trx, bundle, now, e), span));
      if (!(await store.deliveries.markDelivered(trx, this.leaseOf(d), now.toISOString()))) throw new LeaseLost(d.delivery_id);
      // A run this handler continued (it opened deliveries in it) is not quiet: the completions of
      // those deliveries settle it, so neither check is needed here.
      if (counter.openedInRun > 0) return true;
      return (await settleRunIfDone(store, trx, bundle, d.run_id, now)) !== undefined;
    });
    if (!settledOrContinued && d.run_id) await this.settleAfterCommit([d.run_id]);
    return counter.opened;
  }

  /**
   * With several writers (PostgreSQL), two last completions of a run can commit at once, each
   * seeing the other's delivery still open in its own transaction (READ COMMITTED), and neither
   * settles the run. Checking again after the commit closes that gap: of the two checks, the one
   * that starts after both commits sees both. A completion that opened deliveries in its run needs
   * no check: the run stays open until those complete, and the last of them checks.
   */
  private async settleAfterCommit(runIds: readonly string[]): Promise<void> {
    const { store, clock } = this.services;
    if (runIds.length === 0 || !store.capabilities.concurrentWriters) return;
    await store.transactionInGroup((trx) => settleRunsIfDone(store, trx, this.services.bundle, runIds, clock.now())).catch(() => undefined);
  }

  private async fail(d: DeliveryRecord, event: EventRecord, failure: HandlerFailure, span: Span): Promise<void> {
    const { store, clock, bundle, log } = this.services;
    const final = !failure.retryable || d.attempts >= d.max_attempts;
    const ids = { event_id: event.event_id, run_id: d.run_id, delivery_id: d.delivery_id, entity_id: event.entity_id };
    let settleLater = false;
    if (!failure.logged) {
      await log.write({
        level: final ? 'error' : 'warn',
        component: failure.component ?? `${d.subscriber_type}.${d.subscriber_id}`,
        error_code: failure.errorCode ?? failure.reasonCode.toUpperCase(),
        message: `${d.subscriber_id} failed on ${event.event_name} (attempt ${d.attempts}): ${failure.message}`,
        ...ids,
      });
    }
    try {
      await store.transactionInGroup(async (trx) => {
        const now = clock.now();
        const nowIso = now.toISOString();
        await failure.record?.(trx, { final, attempt: d.attempts });
        if (!final) {
          const delay = backoffFor(bundle.definition.runtime.backoff_ms, d.attempts);
          const retried = await store.deliveries.scheduleRetry(
            trx,
            this.leaseOf(d),
            { next_attempt_at: new Date(now.getTime() + delay).toISOString(), last_error: failure.message.slice(0, 2000), reason_code: failure.reasonCode },
            nowIso,
          );
          if (!retried) throw new LeaseLost(d.delivery_id);
          recordDeliveryOutcome(span, 'retry', failure.message);
          await log.write(
            {
              level: 'warn',
              component: 'dispatcher',
              error_code: 'DELIVERY_RETRY',
              message: `retrying ${d.subscriber_id} on ${event.event_name} in ${delay} ms (attempt ${d.attempts} of ${d.max_attempts} failed: ${failure.reasonCode})`,
              ...ids,
            },
            trx,
          );
          return;
        }
        const failed = await store.deliveries.markFailed(trx, this.leaseOf(d), { last_error: failure.message.slice(0, 2000), reason_code: failure.reasonCode }, nowIso);
        if (!failed) throw new LeaseLost(d.delivery_id);
        recordDeliveryOutcome(span, 'dead_letter', failure.message);
        const dead_letter_id = newId('dl', now);
        await store.deliveries.insertDeadLetter(trx, {
          dead_letter_id,
          event_id: event.event_id,
          event_seq: event.seq,
          event_created_at: event.created_at,
          delivery_id: d.delivery_id,
          run_id: d.run_id,
          subscriber_id: d.subscriber_id,
          chain_depth: event.chain_depth,
          created_at: nowIso,
          failure_type: failure.failureType,
          retry_count: Math.max(0, Math.min(d.attempts, d.max_attempts) - 1),
          error_message: failure.message.slice(0, 2000),
          handler_node: d.subscriber_id,
          reason_code: failure.reasonCode,
        });
        await log.write(
          {
            level: 'error',
            component: 'dispatcher',
            error_code: 'DEAD_LETTER',
            message: `dead-lettered ${d.subscriber_id} on ${event.event_name} after ${d.attempts} attempt(s): ${failure.failureType}/${failure.reasonCode}: ${failure.message}`,
            dead_letter_id,
            // One incident per (subscriber, reason): see docs/api-notes.md, "Incident grouping key".
            cause_key: deadLetterCauseKey(d.subscriber_id, failure.reasonCode),
            ...ids,
          },
          trx,
        );
        if (!(await settleRunIfDone(store, trx, this.services.bundle, d.run_id, now))) settleLater = true;
      });
      this.services.observer.onDeliveryOutcome(d.subscriber_id, final ? 'dead_letter' : 'retry');
      if (settleLater && d.run_id) await this.settleAfterCommit([d.run_id]);
    } catch (err) {
      if (err instanceof LeaseLost) {
        recordDeliveryOutcome(span, 'lease_lost', err.message);
        await this.safeLog('warn', 'LEASE_LOST', err.message);
      } else throw err;
    }
  }

  /** Deliveries not yet finished (pending, including retries waiting for backoff, or in progress). */
  openDeliveryCount(): Promise<number> {
    return this.services.store.deliveries.openCount();
  }

  /** Resolves once nothing is in flight here and no delivery is open in the store. */
  async waitForIdle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.inFlight.size === 0 && (await this.openDeliveryCount()) === 0) return;
      if (Date.now() > deadline) throw new Error(`runtime not idle after ${timeoutMs} ms (${await this.openDeliveryCount()} open deliveries, ${this.inFlight.size} in flight)`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Deterministic dispatch for tests and scripts: claims and runs deliveries one at a time in
   * this call until none is open, sleeping only while retries wait out their backoff.
   */
  async runUntilIdle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const batch = this.claimsPaused ? [] : await this.claimDue(16);
      for (const d of batch) await this.track(d);
      if (batch.length > 0) continue;
      if (this.inFlight.size === 0 && (await this.openDeliveryCount()) === 0) return;
      if (Date.now() > deadline) throw new Error(`runUntilIdle: still ${await this.openDeliveryCount()} open deliveries after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /**
   * Settles runs whose chain went quiet without a completion noticing (another process, a crash),
   * looking at a window of running runs per call (quietSweepWindow), the next ones each time, from
   * the start again after the last: a sweep's cost stays bounded however many runs wait on a backlog.
   */
  async settleQuietRuns(): Promise<number> {
    const { store, clock } = this.services;
    const { quiet: runIds, next } = await store.deliveries.quietRuns(this.sweepFrom, this.quietSweepWindow);
    this.sweepFrom = next;
    let settled = 0;
    for (const runId of runIds) {
      const s = await store.transaction((trx) => settleRunIfDone(store, trx, this.services.bundle, runId, clock.now()));
      if (s) settled++;
    }
    return settled;
  }

  /**
   * Cancels deliveries that have not started (all, or those of the given runs) and marks their
   * running runs cancelled once nothing of them is in progress. Queued ingress is left alone
   * (see Ingress.cancelQueued). For reset quiescence.
   */
  async cancelPending(runIds?: string[]): Promise<{ cancelled_deliveries: number; cancelled_runs: number }> {
    if (runIds && runIds.length === 0) return { cancelled_deliveries: 0, cancelled_runs: 0 };
    const { store, clock } = this.services;
    return store.transaction((trx) => store.deliveries.cancelPending(trx, runIds, clock.now().toISOString()));
  }
}
