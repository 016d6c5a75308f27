/**
 * Writing the publishes of one turn: their runs, events and deliveries (written leased to this
 * process's dispatcher where it has room), or, while ingress is paused, their queue entries.
 */
import type { Clock, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import type { ClaimedDelivery } from './claimed-delivery';
import type { Dispatcher } from './dispatcher';
import type { OnEffectCommit } from './effect-commit';
import { insertRun, leaseDeliveries, leasedDeliveries, prepareEvent, settleRunsIfDone } from './event-store';
import { newId } from './ids';

/** The runtime_state row that holds the ingress state ('open' or 'paused'). */
export const INGRESS_KEY = 'ingress';

export interface PublishInput {
  event_name: string;
  payload?: Record<string, unknown>;
  entity_id?: string;
  bundle_ref?: { fingerprint: string };
  /** Who published: "api" by default; the demo uses "demo". */
  source?: string;
  /** The person who published, kept on the run: they may not approve its mailbox items. */
  startedByUserId?: string;
}

export interface PublishResult {
  run_id: string;
  event_id: string;
  status: 'running' | 'queued';
}

/**
 * Sends the reset guard with the transaction's next statement, which fails (refusedByGuard) while
 * a reset holds the lock or `refuse.key` has `refuse.value` (see ResetLock.guardWritesWithNext).
 */
export type GuardWithNext = (tx: StoreTx, refuse: { key: string; value: string }) => Promise<void>;

export type LocalDispatch = Pick<Dispatcher, 'reserve' | 'leaseAtWrite' | 'runReserved'>;

/** A validated publish waiting to be written together with the others that arrived in the same turn. */
export interface QueuedPublishCall {
  input: PublishInput;
  payload: Record<string, unknown>;
  guard: (tx: StoreTx) => Promise<void>;
  guardWithNext: GuardWithNext | undefined;
  onCommit: OnEffectCommit<PublishResult> | undefined;
  /** The publish span's context, stored with the event (undefined while tracing is off). */
  traceparent: string | undefined;
  resolve: (result: PublishResult) => void;
  reject: (error: unknown) => void;
}

/** What writing publishes needs of its Ingress. */
export interface PublishWriteDeps {
  store: Store;
  bundle: LoadedBundle;
  clock: Clock;
  localDispatch: LocalDispatch | undefined;
}

/**
 * Publishes in one group-commit member: their runs, events and deliveries go in one statement
 * per table, and the runs that opened no delivery settle in one more, instead of three or four
 * statements each. The first `reserved` deliveries are written leased to this process's
 * dispatcher, which runs them once this commits (`leased`). While ingress is paused they are
 * queued instead.
 */
export async function writePublishes(
deps: PublishWriteDeps,
trx: StoreTx,
batch: QueuedPublishCall[],
reserved: number,
guardWithNext: GuardWithNext | undefined,
): Promise<{ results: PublishResult[]; leased: ClaimedDelivery[] }> {
  if (guardWithNext) await guardWithNext(trx, { key: INGRESS_KEY, value: 'paused' });
  else for (const p of batch) await p.guard(trx);
  // Read once per group commit: its publishes commit together, as of that read.
  if (!guardWithNext && (await deps.store.runtimeState.getOnceIn(INGRESS_KEY, trx)) === 'paused') {
    const results: PublishResult[] = [];
    for (const p of batch) results.push(await writeQueued(deps, trx, p));
    return { results, leased: [] };
  }
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const written = batch.map(({ input, payload, traceparent }) => {
    const run_id = newId('run', now);
    const event = prepareEvent(deps.bundle, now, {
      event_name: input.event_name,
      payload,
      entity_id: input.entity_id ?? null,
      run_id,
      source: input.source ?? 'api',
      chain_depth: 0,
      parent_event_id: null,
      traceparent,
    });
    return { run_id, event };
  });
  const events = written.map((w) => w.event);
  if (reserved > 0) leaseDeliveries(events, reserved, deps.localDispatch!.leaseAtWrite(now));
  await deps.store.runWrites.insertRuns(
    trx,
    batch.map(({ input }, i) => ({
      run_id: written[i]!.run_id,
      status: 'running',
      root_event_id: written[i]!.event.written.event_id,
      event_name: input.event_name,
      entity_id: input.entity_id ?? null,
      created_at: nowIso,
      bundle_fingerprint: deps.bundle.fingerprint,
      settled_at: null,
      started_by_user_id: input.startedByUserId ?? null,
    })),
  );
  const seqs = await deps.store.runWrites.appendEvents(trx, events);
  await settleRunsIfDone(
    deps.store,
    trx,
    deps.bundle,
    written.filter((w) => w.event.deliveries.length === 0).map((w) => w.run_id),
    now,
  );
  const results = written.map((w) => ({ run_id: w.run_id, event_id: w.event.written.event_id, status: 'running' as const }));
  for (const [i, p] of batch.entries()) await p.onCommit?.(trx, results[i]!);
  return { results, leased: reserved > 0 ? leasedDeliveries(events, seqs) : [] };
}

/** A publish while ingress is paused: a queued run and its queue entry, released by resume. */
async function writeQueued(deps: PublishWriteDeps, trx: StoreTx, { input, payload, onCommit, traceparent }: QueuedPublishCall): Promise<PublishResult> {
const { store } = deps;
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const run_id = newId('run', now);
  const event_id = newId('evt', now);
  await insertRun(store, trx, deps.bundle, {
    run_id,
    status: 'queued',
    root_event_id: event_id,
    event_name: input.event_name,
    entity_id: input.entity_id ?? null,
    created_at: nowIso,
    started_by_user_id: input.startedByUserId ?? null,
  });
  await store.runWrites.enqueuePublish(trx, {
    queue_id: newId('q', now),
    event_id,
    run_id,
    event_name: input.event_name,
    payload: JSON.stringify(payload),
    entity_id: input.entity_id ?? null,
    source: input.source ?? 'api',
    status: 'queued',
    queued_at: nowIso,
    released_at: null,
    ...(traceparent === undefined ? {} : { traceparent }),
  });
  const queued = { run_id, event_id, status: 'queued' as const };
  await onCommit?.(trx, queued);
  return queued;
}
