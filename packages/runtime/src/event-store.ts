/**
 * Writing events with their deliveries, and settling runs: the rules (which subscribers get a
 * delivery, when a run has failed). Every function takes the transaction it must run in: an
 * event, its deliveries and the change that caused them commit together.
 */
import type { NewDeliveryRow, NewEventRow, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import { newId } from './ids';
import { activeTraceparent } from './tracing';
import type { ClaimedDelivery, LeaseAtWrite } from './claimed-delivery';
import type { EmittedEvent } from './handler';

export type { EmittedEvent };

export interface NewEvent {
  event_id?: string;
  event_name: string;
  payload: Record<string, unknown>;
  entity_id: string | null;
  run_id: string;
  source: string;
  chain_depth: number;
  parent_event_id: string | null;
  /** A replay: the event this one publishes again. */
  replay_of_event_id?: string;
  /** A replay to named subscribers: deliveries only to those of the catalog's subscribers. */
  only_subscribers?: readonly string[];
  /** The W3C context of the span that writes it (tracing on only). */
  traceparent?: string;
}

export interface WrittenEvent extends EmittedEvent {
  seq: number;
}

/** An event and its deliveries built from the catalog, ready to insert (alone or with others). */
export interface PreparedEvent {
  event: NewEventRow;
  deliveries: NewDeliveryRow[];
  written: EmittedEvent;
}

export function prepareEvent(bundle: LoadedBundle, now: Date, e: NewEvent): PreparedEvent {
  const created_at = now.toISOString();
  const event_id = e.event_id ?? newId('evt', now);
  const catalog = bundle.definition.events[e.event_name]?.subscribers ?? [];
  const only = e.only_subscribers;
  const subscribers = only ? catalog.filter((s) => only.includes(s.id)) : catalog;
  const deliveries = subscribers.map((s) => ({
    delivery_id: newId('dlv', now),
    run_id: e.run_id,
    subscriber_id: s.id,
    subscriber_type: s.type,
    status: 'pending',
    attempts: 0,
    max_attempts: bundle.definition.runtime.max_attempts,
    next_attempt_at: created_at,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    reason_code: null,
    session_id: null,
    created_at,
    updated_at: created_at,
  }));
  const event: NewEventRow = {
    event_id,
    event_name: e.event_name,
    created_at,
    source: e.source,
    payload: JSON.stringify(e.payload),
    entity_id: e.entity_id,
    run_id: e.run_id,
    chain_depth: e.chain_depth,
    parent_event_id: e.parent_event_id,
    has_dead_letter: 0,
    replay_of_event_id: e.replay_of_event_id ?? null,
  };
  // Set only when traced: untraced rows leave the column to its default, so they cost nothing more.
  if (e.traceparent !== undefined) event.traceparent = e.traceparent;
  return {
    event,
    deliveries,
    written: { event_id, created_at, subscribers: subscribers.map((s) => s.id), delivery_ids: deliveries.map((d) => d.delivery_id) },
  };
}

/** Writes `lease` into the first `count` deliveries of `events`, in order. */
export function leaseDeliveries(events: readonly PreparedEvent[], count: number, lease: LeaseAtWrite): void {
  let left = count;
  for (const { deliveries } of events) {
    for (const d of deliveries) {
      if (left-- <= 0) return;
      Object.assign(d, lease);
    }
  }
}

/** The deliveries of `events` written leased (leaseDeliveries), as the dispatcher runs them; `seqs` are the events' own. */
export function leasedDeliveries(events: readonly PreparedEvent[], seqs: readonly number[]): ClaimedDelivery[] {
  return events.flatMap(({ event, deliveries }, i) => {
    const leased = deliveries.filter((d) => d.lease_owner !== null);
    if (leased.length === 0) return [];
    const record = {
      event_id: event.event_id,
      event_name: event.event_name,
      payload: JSON.parse(event.payload) as Record<string, unknown>,
      entity_id: event.entity_id ?? null,
      run_id: event.run_id ?? null,
      chain_depth: event.chain_depth,
      created_at: event.created_at,
      seq: seqs[i]!,
      traceparent: event.traceparent ?? null,
    };
    return leased.map((d) => ({
      delivery_id: d.delivery_id,
      event_id: event.event_id,
      run_id: d.run_id ?? null,
      subscriber_id: d.subscriber_id,
      subscriber_type: d.subscriber_type as 'node' | 'agent',
      attempts: Number(d.attempts),
      max_attempts: Number(d.max_attempts),
      event: record,
    }));
  });
}

/** Without a traceparent of its own, the event is written in the caller's active trace (a mailbox decision's, a replay's), if any. */
export async function insertEventWithDeliveries(store: Store, tx: StoreTx, bundle: LoadedBundle, now: Date, e: NewEvent): Promise<WrittenEvent> {
  const traceparent = e.traceparent ?? activeTraceparent();
  const { event, deliveries, written } = prepareEvent(bundle, now, traceparent === e.traceparent ? e : { ...e, traceparent });
  const seq = await store.runWrites.appendEvent(tx, event, deliveries);
  return { ...written, seq };
}

/**
 * A handler's emitted event. Its seq is not given to the handler (see Emit), so its insert need
 * not be answered before the transaction's next statement: on PostgreSQL one without deliveries
 * goes out with that statement.
 */
export async function insertEmittedEvent(store: Store, tx: StoreTx, bundle: LoadedBundle, now: Date, e: NewEvent): Promise<EmittedEvent> {
  const prepared = prepareEvent(bundle, now, e);
  await store.runWrites.appendEvents(tx, [prepared], { seqs: false });
  return prepared.written;
}

/** A new run, rooted at the event about to be written with the given id. */
export async function insertRun(
  store: Store,
  tx: StoreTx,
  bundle: LoadedBundle,
  run: { run_id: string; root_event_id: string; event_name: string; entity_id: string | null; status: 'running' | 'queued'; created_at: string; started_by_user_id?: string | null },
): Promise<void> {
  await store.runWrites.insertRun(tx, { ...run, bundle_fingerprint: bundle.fingerprint, settled_at: null });
}

/**
 * A run whose chain has no open deliveries settles: failed when a dead letter of it has not been
 * redriven (a redriven one was sent again, and its new delivery decides).
 */
export async function settleRunIfDone(store: Store, tx: StoreTx, bundle: LoadedBundle, runId: string | null, now: Date): Promise<string | undefined> {
  if (!runId) return undefined;
  const settled_at = now.toISOString();
  const status = await store.runWrites.settleWhenQuiet(tx, runId, settled_at);
  // Run-scoped agent sessions end with their run (a bundle without any has none to end).
  if (status && hasRunScopedAgents(bundle)) await store.runWrites.endRunConversations(tx, runId, settled_at);
  return status;
}

/** settleRunIfDone for several runs at once (one statement); returns the runs it settled. */
export async function settleRunsIfDone(store: Store, tx: StoreTx, bundle: LoadedBundle, runIds: readonly string[], now: Date): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const settled_at = now.toISOString();
  const settled = await store.runWrites.settleManyWhenQuiet(tx, runIds, settled_at);
  if (hasRunScopedAgents(bundle)) for (const runId of settled.keys()) await store.runWrites.endRunConversations(tx, runId, settled_at);
  return new Set(settled.keys());
}

function hasRunScopedAgents(bundle: LoadedBundle): boolean {
  return bundle.definition.agents.some((a) => a.session_scope === 'run');
}
