/**
 * What sending one item of a redrive or replay operation writes, in the batch's transaction: the
 * new delivery or the replayed event and its run, or why the item was skipped.
 */
import type { Clock, OperationItemRow, OperationRow, Store, StoreTx } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import { insertEventWithDeliveries, insertRun } from '../event-store';
import { newId } from '../ids';

export type ItemResult = { status: 'done'; resultId: string; eventId: string } | { status: 'skipped'; note: string };

export interface ItemEffectDeps {
  store: Store;
  bundle: LoadedBundle;
  clock: Clock;
}

/** Redrives a dead letter as a new delivery to its subscriber, unless that was done or no longer makes sense. */
export async function redriveItem(deps: ItemEffectDeps, trx: StoreTx, op: OperationRow, item: OperationItemRow, nowIso: string): Promise<ItemResult> {
  const { store, bundle } = deps;
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
  return sent ? { status: 'done', resultId: delivery_id, eventId: source.event_id } : { status: 'skipped', note: 'already redriven' };
}

/** Replays an event as a new run, to the operation's selected subscribers that still subscribe to it. */
export async function replayItem(deps: ItemEffectDeps, trx: StoreTx, op: OperationRow, item: OperationItemRow, nowIso: string): Promise<ItemResult> {
  const { store, bundle, clock } = deps;
  const original = await store.operations.replaySource(trx, item.target_id);
  if (!original) return { status: 'skipped', note: 'the event no longer exists' };
  const only = (JSON.parse(op.selection) as { subscriber_ids?: string[] }).subscriber_ids;
  const catalog = bundle.definition.events[original.event_name]?.subscribers ?? [];
  if (!catalog.some((s) => !only || only.includes(s.id))) return { status: 'skipped', note: `no selected subscriber subscribes to ${original.event_name}` };
  const now = clock.now();
  const run_id = newId('run', now);
  const event_id = newId('evt', now);
  await insertRun(store, trx, bundle, { run_id, root_event_id: event_id, event_name: original.event_name, entity_id: original.entity_id, status: 'running', created_at: nowIso });
  await insertEventWithDeliveries(store, trx, bundle, now, {
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
  return { status: 'done', resultId: event_id, eventId: event_id };
}
