/**
 * Writing events with their deliveries, and settling runs. Every function takes the transaction
 * it must run in: an event, its deliveries and the change that caused them commit together.
 */
import type { Database, Transaction } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import { newId } from './ids';

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
}

export interface WrittenEvent {
  event_id: string;
  seq: number;
  created_at: string;
  subscribers: string[];
  delivery_ids: string[];
}

export async function insertEventWithDeliveries(trx: Transaction<Database>, bundle: LoadedBundle, now: Date, e: NewEvent): Promise<WrittenEvent> {
  const created_at = now.toISOString();
  const event_id = e.event_id ?? newId('evt', now);
  const inserted = await trx
    .insertInto('events')
    .values({
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
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  const seq = Number(inserted.seq);
  const catalog = bundle.definition.events[e.event_name]?.subscribers ?? [];
  const only = e.only_subscribers;
  const subscribers = only ? catalog.filter((s) => only.includes(s.id)) : catalog;
  const delivery_ids: string[] = [];
  if (subscribers.length > 0) {
    const rows = subscribers.map((s) => {
      const delivery_id = newId('dlv', now);
      delivery_ids.push(delivery_id);
      return {
        delivery_id,
        event_id,
        event_seq: seq,
        event_created_at: created_at,
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
      };
    });
    await trx.insertInto('deliveries').values(rows).execute();
  }
  return { event_id, seq, created_at, subscribers: subscribers.map((s) => s.id), delivery_ids };
}

/** A new run, rooted at the event about to be written with the given id. */
export async function insertRun(
  trx: Transaction<Database>,
  bundle: LoadedBundle,
  run: { run_id: string; root_event_id: string; event_name: string; entity_id: string | null; status: 'running' | 'queued'; created_at: string },
): Promise<void> {
  await trx
    .insertInto('runs')
    .values({ ...run, bundle_fingerprint: bundle.fingerprint, settled_at: null })
    .execute();
}

/**
 * A run whose chain has no open deliveries settles: failed when a dead letter of it has not been
 * redriven (a redriven one was sent again, and its new delivery decides).
 */
export async function settleRunIfDone(trx: Transaction<Database>, runId: string | null, now: Date): Promise<string | undefined> {
  if (!runId) return undefined;
  const open = await trx
    .selectFrom('deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', runId)
    .where('status', 'in', ['pending', 'in_progress'])
    .executeTakeFirstOrThrow();
  if (Number(open.n) > 0) return undefined;
  const dead = await trx
    .selectFrom('dead_letters')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', runId)
    .where('redriven_at', 'is', null)
    .executeTakeFirstOrThrow();
  const status = Number(dead.n) > 0 ? 'failed' : 'completed';
  const settled_at = now.toISOString();
  const res = await trx.updateTable('runs').set({ status, settled_at }).where('run_id', '=', runId).where('status', '=', 'running').executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  // Run-scoped agent sessions end with their run.
  await trx
    .updateTable('conversations')
    .set({ status: 'ended', ended_at: settled_at })
    .where('scope_key', '=', `run:${runId}`)
    .where('status', '=', 'active')
    .execute();
  return status;
}

/** New work in a settled run (an approval after the run went quiet) reopens it. */
export async function reopenRun(trx: Transaction<Database>, runId: string): Promise<void> {
  await trx.updateTable('runs').set({ status: 'running', settled_at: null }).where('run_id', '=', runId).where('status', 'in', ['completed', 'failed']).execute();
}
