/**
 * The dispatcher claims due deliveries with a lease and runs them (see DeliveryRunner), up to its
 * concurrency at once.
 *
 * Claiming is a conditional UPDATE (status pending and due, or in_progress with an expired lease),
 * so when several processes share one database exactly one of them wins each delivery; the
 * completion is conditional on still holding that lease (owner and attempt number), and a
 * handler's writes and emitted events commit in the same transaction as the status flip. A
 * process that dies mid-handler leaves a lease that expires, and the delivery is claimed again.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { logDispatchProblem, toEventRecord, type ClaimedDelivery, type LeaseAtWrite } from './claimed-delivery';
import { ClaimWakeups } from './claim-wakeups';
import { DeliveryRunner } from './delivery-runner';
import type { RuntimeServices, SubscriberHandler } from './handler';
import { QUIET_SWEEP_WINDOW, QuietRunSweeper } from './quiet-run-sweeper';
import { startDeliverySpan, withSpan } from './tracing';

export { MAX_BACKOFF_MS, backoffFor, subscriberKey, toEventRecord, type ClaimedDelivery, type LeaseAtWrite } from './claimed-delivery';

export interface DispatcherOptions {
  /**
   * Handlers run at once by this process: 64 by default. Handlers mostly wait (on models, tools);
   * and claims and completions are batched by this many, so with fewer a busy store spends a
   * statement on every few deliveries (docs/performance-notes.md, "Dispatch concurrency").
   */
  concurrency?: number;
  /** Poll interval while work exists; doubles up to idlePollMaxMs while idle. */
  pollMs?: number;
  idlePollMaxMs?: number;
  /** Lease owner id; unique per process by default. */
  owner?: string;
  /** Running runs one quiet-run sweep looks at (QUIET_SWEEP_WINDOW by default). */
  quietSweepWindow?: number;
  /** Called as each turn of the claim loop starts: a caller can wait until the loop has had its chance to act. */
  onTurn?: () => void;
}

export class Dispatcher {
  readonly owner: string;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly idlePollMaxMs: number;
  private readonly onTurn: () => void;
  private running = false;
  private loopPromise: Promise<void> | undefined;
  private claimsPaused = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly wakeups = new ClaimWakeups();
  private lastSweep = 0;
  private readonly sweeper: QuietRunSweeper;
  private readonly runner: DeliveryRunner;
  /** The lock row that stops claims while held ('' for none). */
  private claimLockKey = '';
  /** Slots taken by reserve() for deliveries not committed yet. */
  private reserved = 0;
  /** Callers of stop() waiting for the reservations still open to end. */
  private reservationWaiters: (() => void)[] = [];
  /** Deliveries whose handler has not answered yet. */
  private handlersRunning = 0;
  private wakeOnFinish = true;

  constructor(
    private readonly services: RuntimeServices,
    handlers: Map<string, SubscriberHandler>,
    options: DispatcherOptions = {},
  ) {
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.concurrency = options.concurrency ?? 64;
    this.pollMs = options.pollMs ?? 25;
    this.idlePollMaxMs = options.idlePollMaxMs ?? 250;
    this.onTurn = options.onTurn ?? (() => undefined);
    this.sweeper = new QuietRunSweeper(services, options.quietSweepWindow ?? QUIET_SWEEP_WINDOW);
    this.runner = new DeliveryRunner({ services, handlers, owner: this.owner, onOpened: () => this.wake() });
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
   * server): each claim reads it in the claim's own statement or transaction.
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
   * they commit (runReserved): no claim statement, no wait for a wake-up. Other servers claim what
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
    for (const d of written) this.run(d);
    if (written.length < reserved) this.wake();
    if (this.reserved === 0) for (const resolve of this.reservationWaiters.splice(0)) resolve();
  }

  /** Another server wrote events or deliveries: claim soon (see ClaimWakeups.wakeForOtherServer). */
  wakeForOtherServer(): void {
    this.wakeups.wakeForOtherServer();
  }

  /** Another server wrote deliveries that wait for a claim (see ClaimWakeups.wakeToClaim). */
  wakeToClaim(): void {
    this.wakeups.wakeToClaim();
  }

  /** Called after anything that creates deliveries, so they run without waiting for the next poll. */
  wake(): void {
    this.wakeups.wake();
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

  private async loop(): Promise<void> {
    let idleDelay = this.pollMs;
    while (this.running) {
      this.onTurn();
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
          for (const d of batch) this.run(d);
        } catch (err) {
          await logDispatchProblem(this.services, 'warn', 'CLAIM_FAILED', `claiming deliveries failed: ${(err as Error).message}`);
        }
      }
      if (claimed > 0) {
        idleDelay = this.pollMs;
        // The store answers synchronously and its awaits are microtasks: without a macrotask turn
        // here, a busy dispatcher would keep HTTP requests waiting until the backlog is gone.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.room() >= this.concurrency / 2) continue;
        this.wakeOnFinish = true;
        await this.wakeups.sleep(this.pollMs);
        continue;
      }
      if (Date.now() - this.lastSweep > 2_000 && this.inFlight.size === 0) {
        this.lastSweep = Date.now();
        await this.settleQuietRuns().catch(() => undefined);
      }
      if (this.wakeups.takeClaimAgain()) continue;
      await this.wakeups.sleep(idleDelay);
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
    if (this.wakeOnFinish) this.wakeups.wake();
  }

  /** Runs a claimed delivery as the loop does: counted in flight until its outcome is recorded. */
  run(d: ClaimedDelivery): Promise<void> {
    const p: Promise<void> = this.process(d)
      .catch((err) => logDispatchProblem(this.services, 'error', 'DISPATCH_FAULT', `delivery ${d.delivery_id}: ${(err as Error).message}`))
      .finally(() => {
        this.inFlight.delete(p);
        if (this.wakeOnFinish) this.wakeups.wake();
      });
    this.inFlight.add(p);
    return p;
  }

  /**
   * Claims up to `limit` due deliveries (each row goes to one claimer, on any server; see
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

  /** Runs one claimed delivery to its recorded outcome (not counted in flight: see run). */
  async process(claimed: ClaimedDelivery): Promise<void> {
    this.handlersRunning++;
    let slotHeld = true;
    const span = startDeliverySpan(claimed, this.owner);
    try {
      await withSpan(span, () =>
        this.runner.runToOutcome(claimed, span, () => {
          if (slotHeld) this.handlerDone();
          slotHeld = false;
        }),
      );
    } finally {
      if (slotHeld) this.handlerDone();
      span.end();
    }
  }

  /** Settles runs whose chain went quiet without a completion noticing (see QuietRunSweeper). */
  settleQuietRuns(): Promise<number> {
    return this.sweeper.settleQuietRuns();
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
