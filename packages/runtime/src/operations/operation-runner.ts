/**
 * Sends the items of running redrive and replay operations at each operation's rate, each
 * operation by one live server at a time (ADR 0013).
 *
 * A server sends only the operations it holds a lease on: the one it applied (leased at creation)
 * and any running operation whose holder died or whose lease expired, which it claims with a
 * conditional update that bumps the lease epoch. Every batch's transaction starts with the fence,
 * a renewal that matches (operation, owner, epoch): when another server has claimed the operation,
 * or it was cancelled or paused, the fence matches nothing and the batch writes nothing.
 *
 * Within a batch, an item's effect (the new delivery, or the replayed event and its run), its
 * "done" mark and the operation's counts commit together, and an item is only ever taken while
 * pending. An item is marked failed only for an error its own effect raised. The owner also
 * records, as they settle, what became of the deliveries its sent items created, and ends the
 * operation once everything is sent and settled; operations no longer running (cancelled, paused)
 * have their outcomes recorded by any server, each item once.
 */
import type { Clock, OperationLease, OperationRow, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import type { RuntimeLog } from '../runtime-log';
import { noopRuntimeObserver, type RuntimeObserver } from '../observer';
import { redriveItem, replayItem, type ItemResult } from './operation-items';

const TICK_MS = 50;
/** How often a server renews its leases, looks for operations to take over and settles outcomes. */
const SCAN_MS = 1_000;
/** How often the owner records the outcomes of an operation's sent items. */
const SETTLE_MS = 500;
/** Items sent in one transaction at most, whatever the rate. */
const MAX_BATCH = 200;

interface Held {
  lease: OperationLease;
  tokens: number;
  refilledAt: number;
  /** The operation's kind and rate never change: read once. Its status is checked by each batch's fence. */
  op?: OperationRow;
  /** No pending item was left at the last batch: only outcomes are awaited. */
  allSent: boolean;
  settledAt: number;
}

/** The fence matched nothing: another server holds the operation, or it no longer runs. */
class LeaseLost extends Error {}

/** An error raised by one item's own effect: only that item is marked failed. */
class ItemFault extends Error {
  constructor(
    readonly itemIndex: number,
    readonly reason: Error,
  ) {
    super(reason.message);
  }
}

/** Errors of the connection or the database rather than of an item (they are retried, never pinned on an item). */
function isTransient(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^(08|40|53|57)/.test(code)) return true;
  return /terminat|ECONN|EPIPE|timeout|Connection|pool|closed/i.test(err.message);
}

export interface OperationRunnerDeps {
  store: Store;
  clock: Clock;
  bundle: LoadedBundle;
  log: RuntimeLog;
  /** This server: the owner its leases name. */
  serverId: string;
  /** A server whose heartbeat is older than this is dead: its operations are taken over. */
  deadAfterMs: number;
  /** Operations wait while a reset holds the runtime. */
  isResetting(): boolean;
  /** Replays wait while ingress is paused, as publishes do. */
  ingressPaused(): Promise<boolean>;
  /** New deliveries exist: the dispatcher should look now. */
  wakeDispatcher(): void;
  /** In the transaction that finished an operation: it finished with failures (alerts). */
  finishedWithFailures?(tx: StoreTx, operationId: string): Promise<void>;
  observer?: RuntimeObserver;
}

export class OperationRunner {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private current: Promise<void> | undefined;
  private suspended = false;
  private scannedAt = 0;
  /** A lease outlives a few missed renewals, and a dead server is noticed sooner through the registry. */
  readonly leaseMs: number;
  private readonly observer: RuntimeObserver;

  constructor(private readonly deps: OperationRunnerDeps) {
    this.leaseMs = Math.max(2 * deps.deadAfterMs, 5_000);
    this.observer = deps.observer ?? noopRuntimeObserver;
  }

  /** Starts the loop: the first scan claims running operations no live server holds (after a restart, those this process left). */
  async start(): Promise<void> {
    this.running = true;
    this.scannedAt = 0;
    this.schedule(true);
  }

  /** Stops sending and gives up this server's leases, so another server takes its operations over at once. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
    for (const { lease } of this.held.values()) await this.deps.store.operations.release(lease).catch(() => undefined);
    this.held.clear();
  }

  /** The lease a newly applied operation is created with: this server's, at epoch 1. */
  get creationLease(): { owner: string; leaseMs: number } {
    return { owner: this.deps.serverId, leaseMs: this.leaseMs };
  }

  /** Starts sending an operation this server created leased to itself (epoch 1). */
  track(operationId: string, epoch = 1): void {
    if (!this.held.has(operationId)) this.held.set(operationId, { lease: { operation_id: operationId, owner: this.deps.serverId, epoch }, tokens: 1, refilledAt: Date.now(), allSent: false, settledAt: 0 });
    this.schedule();
  }

  /** Stops for a reset: waits for the batch being sent, then cancels every running operation. */
  async cancelAllForReset(actorTokenId: string): Promise<number> {
    this.suspended = true;
    try {
      await this.current;
      const now = this.deps.clock.now().toISOString();
      const cancelled = await this.deps.store.transaction((trx) => this.deps.store.operations.cancelAllRunning(trx, actorTokenId, now));
      this.held.clear();
      return cancelled;
    } finally {
      this.suspended = false;
    }
  }

  private schedule(now = false): void {
    if (!this.running || this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.current = this.tick().finally(() => {
          this.current = undefined;
          this.schedule();
        });
      },
      now ? 0 : TICK_MS,
    );
  }

  private async fault(message: string): Promise<void> {
    await this.deps.log.write({ level: 'error', component: 'operations', error_code: 'OPERATION_FAULT', message }).catch(() => undefined);
  }

  /**
   * Drops an operation whose fence failed (or that is gone): quietly when it no longer runs
   * (cancelled, paused, ended), with a warning when another server took it.
   */
  private async lost(id: string): Promise<void> {
    const row = await this.deps.store.operations.get(id).catch(() => undefined);
    this.held.delete(id);
    const taken = row?.status === 'running' && row.lease_owner !== this.deps.serverId;
    this.observer.onOperationDropped(taken ? 'taken' : 'stopped');
    if (taken) {
      const message = `operation ${id}: ${this.deps.serverId} lost its lease to ${row.lease_owner ?? 'no node'}`;
      void this.deps.log.write({ level: 'warn', component: 'operations', error_code: 'OPERATION_LEASE_LOST', message }).catch(() => undefined);
    }
  }

  private async tick(): Promise<void> {
    if (this.suspended || this.deps.isResetting()) return;
    if (Date.now() - this.scannedAt >= SCAN_MS) {
      this.scannedAt = Date.now();
      await this.scan().catch((err: Error) => this.fault(`operation scan: ${err.message}`));
    }
    for (const [id, held] of [...this.held]) {
      try {
        held.op ??= await this.deps.store.operations.get(id);
        const op = held.op;
        if (!op) {
          await this.lost(id);
          continue;
        }
        const now = Date.now();
        let n = 0;
        if (!held.allSent) {
          if (op.kind === 'replay' && (await this.deps.ingressPaused())) held.refilledAt = now;
          else {
            const rate = Number(op.rate_per_second);
            // Bursts stay small: at most a quarter second of sending, and never less than one item.
            const capacity = Math.max(1, rate * 0.25);
            held.tokens = Math.min(capacity, held.tokens + (rate * (now - held.refilledAt)) / 1000);
            held.refilledAt = now;
            n = Math.min(MAX_BATCH, Math.floor(held.tokens));
          }
        }
        const settle = now - held.settledAt >= SETTLE_MS;
        if (n < 1 && !settle) continue;
        if (settle) held.settledAt = now;
        const sent = await this.sendBatch(held, op, n, settle);
        held.tokens -= Math.max(sent.taken, n > 0 ? 1 : 0);
        if (sent.taken > 0) this.deps.wakeDispatcher();
      } catch (err) {
        if (err instanceof LeaseLost) await this.lost(id);
        else await this.fault(`operation ${id}: ${(err as Error).message}`);
      }
    }
  }

  /**
   * Renews this server's leases (dropping those it lost), claims running operations no live server
   * holds, and records outcomes of operations no longer running.
   */
  private async scan(): Promise<void> {
    const { store } = this.deps;
    for (const [id, held] of [...this.held]) {
      if (!(await store.operations.renew(held.lease, this.leaseMs))) await this.lost(id);
    }
    for (const id of await store.operations.claimable(this.deps.deadAfterMs)) {
      if (this.held.has(id)) continue;
      const epoch = await store.operations.claim(id, this.deps.serverId, this.leaseMs, this.deps.deadAfterMs);
      if (epoch === undefined) continue;
      await this.deps.log.write({ level: 'info', component: 'operations', message: `operation ${id}: ${this.deps.serverId} took it over (lease epoch ${epoch})` }).catch(() => undefined);
      this.track(id, epoch);
    }
    for (const op of await store.operations.unsettled()) {
      await store.transaction((trx) => store.operations.settle(trx, op, this.deps.clock.now().toISOString()));
    }
  }

  /**
   * One fenced transaction: sends up to `n` pending items, records settled outcomes, then pauses
   * or ends the operation when that is due. If one item's effect throws, the batch is rolled back
   * and its items are sent one per transaction, so only the faulty item is marked failed; an
   * error that is not an item's own (the connection, the lease) marks nothing.
   */
  private async sendBatch(held: Held, op: OperationRow, n: number, settle: boolean): Promise<{ taken: number }> {
    try {
      return await this.deps.store.transaction((trx) => this.step(trx, held, op, n, settle));
    } catch (err) {
      if (err instanceof LeaseLost || n <= 1 || !(err instanceof ItemFault)) return this.failItem(held, op, err as Error);
      let taken = 0;
      for (let i = 0; i < n && !held.allSent; i++) {
        try {
          taken += (await this.deps.store.transaction((trx) => this.step(trx, held, op, 1, false))).taken;
        } catch (one) {
          await this.failItem(held, op, one as Error);
          taken++;
        }
      }
      return { taken };
    }
  }

  /** Marks the item whose own effect failed as failed (fenced); rethrows anything else. */
  private async failItem(held: Held, op: OperationRow, err: Error): Promise<{ taken: number }> {
    if (!(err instanceof ItemFault) || isTransient(err.reason)) throw err;
    const { store, clock } = this.deps;
    await store.transaction(async (trx) => {
      if (!(await store.operations.renew(held.lease, this.leaseMs, trx))) throw new LeaseLost();
      const nowIso = clock.now().toISOString();
      if (await store.operations.finishItem(trx, { operation_id: op.operation_id, item_index: err.itemIndex }, 'failed', null, err.message.slice(0, 500), nowIso)) {
        await store.operations.addCounts(trx, op.operation_id, { done: 0, failed: 1, skipped: 0 }, nowIso);
      }
      await this.conclude(trx, held, op, nowIso);
    });
    return { taken: 1 };
  }

  private async step(trx: StoreTx, held: Held, op: OperationRow, n: number, settle: boolean): Promise<{ taken: number }> {
    const { store, clock } = this.deps;
    if (!(await store.operations.renew(held.lease, this.leaseMs, trx))) throw new LeaseLost();
    const nowIso = clock.now().toISOString();
    let taken = 0;
    if (n > 0) {
      taken = await this.sendItems(trx, op, n, nowIso);
      if (taken < n) held.allSent = true;
    }
    if (settle || held.allSent) await store.operations.settle(trx, op, nowIso);
    await this.conclude(trx, held, op, nowIso);
    return { taken };
  }

  /** Pauses the operation after its re-failure limit, or ends it once everything is sent and settled. */
  private async conclude(trx: StoreTx, held: Held, op: OperationRow, nowIso: string): Promise<void> {
    const { store } = this.deps;
    const paused = await store.operations.pauseIfFailing(trx, op.operation_id, nowIso);
    const finished = !paused && held.allSent && (await store.operations.finishIfSettled(trx, op.operation_id, nowIso));
    if (finished) await this.deps.finishedWithFailures?.(trx, op.operation_id);
    if (paused || finished) {
      // Dropped after the commit: the next fence would fail anyway.
      queueMicrotask(() => this.held.delete(op.operation_id));
    }
  }

  private async sendItems(trx: StoreTx, op: OperationRow, n: number, nowIso: string): Promise<number> {
    const { store } = this.deps;
    const items = await store.operations.pendingItems(trx, op.operation_id, n);
    const counts = { done: 0, failed: 0, skipped: 0 };
    for (const item of items) {
      let result: ItemResult;
      try {
        result = op.kind === 'redrive' ? await redriveItem(this.deps, trx, op, item, nowIso) : await replayItem(this.deps, trx, op, item, nowIso);
      } catch (err) {
        throw new ItemFault(Number(item.item_index), err as Error);
      }
      const recorded = await store.operations.finishItem(
        trx,
        item,
        result.status,
        result.status === 'done' ? result.resultId : null,
        result.status === 'skipped' ? result.note : null,
        nowIso,
        result.status === 'done' ? result.eventId : null,
      );
      // Under the lease nobody else sends this operation's items: this would be a broken fence.
      if (!recorded) throw new LeaseLost(`item ${item.item_index} of ${op.operation_id} was no longer pending`);
      counts[result.status]++;
    }
    if (items.length > 0) await store.operations.addCounts(trx, op.operation_id, counts, nowIso);
    return items.length;
  }
}
