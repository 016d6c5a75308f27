/**
 * Sends the items of running redrive and replay operations at each operation's rate.
 *
 * An item's effect (the new delivery, or the replayed event and its run), its "done" mark and the
 * operation's counts commit in one transaction, and an item is only ever taken while pending: a
 * process killed mid-operation continues after restart from the first pending item, and no item
 * is sent twice. The rate is a token bucket per operation, refilled every tick.
 */
import type { Clock, OperationItemRow, OperationRow, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import { insertEventWithDeliveries, insertRun } from '../event-store';
import { newId } from '../ids';
import type { RuntimeLog } from '../runtime-log';

const TICK_MS = 50;
/** Items sent in one transaction at most, whatever the rate. */
const MAX_BATCH = 200;

interface Bucket {
  tokens: number;
  refilledAt: number;
  /** The operation's kind and rate never change: read once. Its status is read with each batch. */
  op?: OperationRow;
}

type ItemResult = { status: 'done'; resultId: string } | { status: 'skipped'; note: string };

export interface OperationRunnerDeps {
  store: Store;
  clock: Clock;
  bundle: LoadedBundle;
  log: RuntimeLog;
  /** Operations wait while a reset holds the runtime. */
  isResetting(): boolean;
  /** Replays wait while ingress is paused, as publishes do. */
  ingressPaused(): Promise<boolean>;
  /** New deliveries exist: the dispatcher should look now. */
  wakeDispatcher(): void;
}

export class OperationRunner {
  private readonly buckets = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private current: Promise<void> | undefined;
  private suspended = false;

  constructor(private readonly deps: OperationRunnerDeps) {}

  /** Picks up every running operation (after a restart, those a killed process left). */
  async start(): Promise<void> {
    this.running = true;
    for (const id of await this.deps.store.operations.runningIds()) this.track(id);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  /** Starts sending a newly created operation's items. */
  track(operationId: string): void {
    if (!this.buckets.has(operationId)) this.buckets.set(operationId, { tokens: 1, refilledAt: Date.now() });
    this.schedule();
  }

  /** Stops for a reset: waits for the batch being sent, then cancels every running operation. */
  async cancelAllForReset(actorTokenId: string): Promise<number> {
    this.suspended = true;
    try {
      await this.current;
      const now = this.deps.clock.now().toISOString();
      const cancelled = await this.deps.store.transaction((trx) => this.deps.store.operations.cancelAllRunning(trx, actorTokenId, now));
      this.buckets.clear();
      return cancelled;
    } finally {
      this.suspended = false;
    }
  }

  private schedule(): void {
    if (!this.running || this.timer || this.buckets.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.current = this.tick().finally(() => {
        this.current = undefined;
        this.schedule();
      });
    }, TICK_MS);
  }

  private async tick(): Promise<void> {
    if (this.suspended || this.deps.isResetting()) return;
    for (const [id, bucket] of [...this.buckets]) {
      try {
        bucket.op ??= await this.deps.store.operations.get(id);
        const op = bucket.op;
        if (!op || op.status !== 'running') {
          this.buckets.delete(id);
          continue;
        }
        if (op.kind === 'replay' && (await this.deps.ingressPaused())) {
          bucket.refilledAt = Date.now();
          continue;
        }
        const now = Date.now();
        const rate = op.rate_per_second;
        // Bursts stay small: at most a quarter second of sending, and never less than one item.
        const capacity = Math.max(1, rate * 0.25);
        bucket.tokens = Math.min(capacity, bucket.tokens + (rate * (now - bucket.refilledAt)) / 1000);
        bucket.refilledAt = now;
        const n = Math.min(MAX_BATCH, Math.floor(bucket.tokens));
        if (n < 1) continue;
        const sent = await this.sendBatch(op, n);
        bucket.tokens -= Math.max(sent.taken, 1);
        if (sent.finished) this.buckets.delete(id);
        if (sent.taken > 0) this.deps.wakeDispatcher();
      } catch (err) {
        await this.deps.log
          .write({ level: 'error', component: 'operations', error_code: 'OPERATION_FAULT', message: `operation ${id}: ${(err as Error).message}` })
          .catch(() => undefined);
      }
    }
  }

  /**
   * Sends up to `n` pending items in one transaction. If one of them throws, the batch is rolled
   * back and its items are sent one per transaction, so only the faulty item is marked failed.
   */
  private async sendBatch(op: OperationRow, n: number): Promise<{ taken: number; finished: boolean }> {
    const { store } = this.deps;
    try {
      return await store.transaction((trx) => this.sendItems(trx, op, n));
    } catch {
      let taken = 0;
      for (let i = 0; i < n; i++) {
        try {
          const r = await store.transaction((trx) => this.sendItems(trx, op, 1));
          taken += r.taken;
          if (r.finished || r.taken === 0) return { taken, finished: r.finished };
        } catch (err) {
          await this.markFirstPendingFailed(op, (err as Error).message);
          taken++;
        }
      }
      return { taken, finished: false };
    }
  }

  private async sendItems(trx: StoreTx, op: OperationRow, n: number): Promise<{ taken: number; finished: boolean }> {
    const { store, clock } = this.deps;
    const fresh = await store.operations.get(op.operation_id, trx);
    if (!fresh || fresh.status !== 'running') return { taken: 0, finished: true };
    const items = await store.operations.pendingItems(trx, op.operation_id, n);
    const nowIso = clock.now().toISOString();
    const counts = { done: 0, failed: 0, skipped: 0 };
    for (const item of items) {
      const result = op.kind === 'redrive' ? await this.redriveItem(trx, op, item, nowIso) : await this.replayItem(trx, op, item, nowIso);
      const recorded = await store.operations.finishItem(trx, item, result.status, result.status === 'done' ? result.resultId : null, result.status === 'skipped' ? result.note : null, nowIso);
      if (!recorded) throw new Error(`item ${item.item_index} of ${op.operation_id} was taken by another sender`);
      counts[result.status]++;
    }
    await store.operations.addCounts(trx, op.operation_id, counts, nowIso);
    const finished = items.length < n || (await store.operations.pendingItems(trx, op.operation_id, 1)).length === 0;
    if (finished) await store.operations.finish(trx, op.operation_id, 'completed', nowIso);
    return { taken: items.length, finished };
  }

  private async markFirstPendingFailed(op: OperationRow, message: string): Promise<void> {
    const { store, clock } = this.deps;
    await store.transaction(async (trx) => {
      const [item] = await store.operations.pendingItems(trx, op.operation_id, 1);
      if (!item) return;
      const nowIso = clock.now().toISOString();
      await store.operations.finishItem(trx, item, 'failed', null, message.slice(0, 500), nowIso);
      await store.operations.addCounts(trx, op.operation_id, { done: 0, failed: 1, skipped: 0 }, nowIso);
    });
  }

  private async redriveItem(trx: StoreTx, op: OperationRow, item: OperationItemRow, nowIso: string): Promise<ItemResult> {
    const { store, bundle } = this.deps;
    const source = await store.operations.redriveSource(trx, item.target_id);
    if (!source) return { status: 'skipped', note: 'the dead letter no longer exists' };
    if (source.redriven_at) return { status: 'skipped', note: `already redriven at ${source.redriven_at}` };
    const subscriberId = source.subscriber_id;
    const subscriber = bundle.definition.events[source.event_name]?.subscribers.find((s) => s.id === subscriberId);
    if (!subscriberId || !subscriber) return { status: 'skipped', note: `${subscriberId ?? 'the subscriber'} no longer subscribes to ${source.event_name}` };
    const delivery_id = newId('dlv');
    const sent = await store.operations.redrive(
      trx,
      { ...source, subscriber_id: subscriberId, subscriber_type: source.subscriber_type ?? subscriber.type },
      { delivery_id, max_attempts: bundle.definition.runtime.max_attempts, operation_id: op.operation_id, actor_token_id: op.actor_token_id, now: nowIso },
    );
    return sent ? { status: 'done', resultId: delivery_id } : { status: 'skipped', note: 'already redriven' };
  }

  private async replayItem(trx: StoreTx, op: OperationRow, item: OperationItemRow, nowIso: string): Promise<ItemResult> {
    const { bundle, clock } = this.deps;
    const original = await this.deps.store.operations.replaySource(trx, item.target_id);
    if (!original) return { status: 'skipped', note: 'the event no longer exists' };
    const only = (JSON.parse(op.selection) as { subscriber_ids?: string[] }).subscriber_ids;
    const catalog = bundle.definition.events[original.event_name]?.subscribers ?? [];
    if (!catalog.some((s) => !only || only.includes(s.id))) return { status: 'skipped', note: `no selected subscriber subscribes to ${original.event_name}` };
    const now = clock.now();
    const run_id = newId('run', now);
    const event_id = newId('evt', now);
    await insertRun(this.deps.store, trx, bundle, { run_id, root_event_id: event_id, event_name: original.event_name, entity_id: original.entity_id, status: 'running', created_at: nowIso });
    await insertEventWithDeliveries(this.deps.store, trx, bundle, now, {
      event_id,
      event_name: original.event_name,
      payload: JSON.parse(original.payload) as Record<string, unknown>,
      entity_id: original.entity_id,
      run_id,
      source: `replay:${op.operation_id}`,
      chain_depth: 0,
      parent_event_id: null,
      replay_of_event_id: original.event_id,
      only_subscribers: only,
    });
    return { status: 'done', resultId: event_id };
  }
}
