/**
 * PostgreSQL's claim and its batched completion: several servers claim at once, so the claim picks
 * rows FOR UPDATE SKIP LOCKED and reads the reset lock FOR SHARE in the same statement.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, EventsTable } from '../../schema';
import { prepared } from '../../prepared-statements';
import { compiledOnce } from '../../compiled-once';
import type { ClaimedDeliveryWithEvent, ClaimedRow } from '../engine';

/**
 * Marking delivered on PostgreSQL. Array parameters: one text for any count, prepared once per
 * connection and compiled once per database handle.
 */
export const markDeliveredByArrays = compiledOnce((db, nowIso: string, ids: string[], attempts: number[], owner: string) =>
  sql<{ delivery_id: string }>`
    update deliveries set status = 'delivered', lease_owner = null, lease_expires_at = null, updated_at = ${nowIso}
    where delivery_id = any(${ids}::text[])
      and (delivery_id, attempts) in (select * from unnest(${ids}::text[], ${attempts}::int[]))
      and lease_owner = ${owner} and status = 'in_progress'
    returning delivery_id${prepared}`,
);

/**
 * Claims up to `limit` deliveries that may be claimed now for `owner` until `leaseUntil` (expired
 * leases first, then due pending ones, oldest first) with their events, unless the
 * `runtime_state` row `lockKey` holds an unexpired lock (a JSON value with `expires_at`, as the
 * reset lock writes it; empty when free): then nothing is claimed and `locked` is true.
 *
 * One statement in a transaction of its own (an idle dispatcher polls with
 * it, and each round trip counts): it reads the lock row `FOR SHARE`, so a holder taking the lock
 * waits for the claim to commit and a claim that waited for the holder sees it; it picks the rows
 * `FOR UPDATE SKIP LOCKED` (through `claimable_deliveries`, migration 010: a plan that does not
 * follow stale statistics), so claimers on several servers take disjoint rows without waiting for
 * each other, updates them and returns them joined with their events.
 *
 * The update finds the picked rows by primary key (`= any(array(...))`) and each event is read by
 * its key (a lateral subquery with `limit 1`, which the planner does not flatten into a join).
 * Written as plain joins, the planner expected about as many rows from `picked` as a small table
 * holds and hashed a sequential scan of all of `deliveries` and all of `events` on every claim,
 * growing with the tables (docs/performance-notes.md, "The claim statement").
 */
export async function claimDueUnlessLockedOnPostgres(
  db: Kysely<Database>,
  { lockKey, owner, leaseUntil, nowIso, limit }: { lockKey: string; owner: string; leaseUntil: string; nowIso: string; limit: number },
): Promise<{ locked: boolean; claimed: ClaimedDeliveryWithEvent[] }> {
  const { rows } = await sql<ClaimedRow & { previous_owner: string | null; reclaimed: boolean; locked_now: boolean } & Record<`e_${keyof EventsTable & string}`, unknown>>`
    with lock as (
      select value from runtime_state where key = ${lockKey} for share
    ),
    free as (
      select not exists (
        select 1 from lock where case when value not like '{%' then false else (value::json ->> 'expires_at') > ${nowIso} end
      ) as free
    ),
    picked as (
      select * from claimable_deliveries(${nowIso}, ${limit}, (select free from free))
    ),
    taken as (
      update deliveries d
      set status = 'in_progress', lease_owner = ${owner}, lease_expires_at = ${leaseUntil}, attempts = d.attempts + 1, updated_at = ${nowIso}
      where d.delivery_id = any(array(select delivery_id from picked))
      returning d.delivery_id, d.event_id, d.run_id, d.subscriber_id, d.subscriber_type, d.attempts, d.max_attempts
    )
    select (select not free from free) as locked_now, taken.*, picked.previous_owner, picked.reclaimed,
      e.event_id as e_event_id, e.event_name as e_event_name, e.created_at as e_created_at, e.source as e_source, e.payload as e_payload,
      e.entity_id as e_entity_id, e.run_id as e_run_id, e.parent_event_id as e_parent_event_id, e.chain_depth as e_chain_depth, e.seq as e_seq,
      e.has_dead_letter as e_has_dead_letter, e.replay_of_event_id as e_replay_of_event_id, e.traceparent as e_traceparent
    from (select 1) one
    left join (
      taken
      join picked on picked.delivery_id = taken.delivery_id
      cross join lateral (select * from events where events.event_id = taken.event_id limit 1) e
    ) on true`.execute(db);
  const locked = rows.length > 0 && Boolean(rows[0]!.locked_now);
  const claimed = rows
    .filter((r) => r.delivery_id !== null)
    .map((r) => {
      const event = {
        event_id: r.e_event_id,
        event_name: r.e_event_name,
        created_at: r.e_created_at,
        source: r.e_source,
        payload: r.e_payload,
        entity_id: r.e_entity_id,
        run_id: r.e_run_id,
        parent_event_id: r.e_parent_event_id,
        chain_depth: r.e_chain_depth,
        seq: r.e_seq,
        has_dead_letter: r.e_has_dead_letter,
        replay_of_event_id: r.e_replay_of_event_id,
        traceparent: r.e_traceparent,
      } as Selectable<EventsTable>;
      return {
        delivery_id: r.delivery_id,
        event_id: r.event_id,
        run_id: r.run_id,
        subscriber_id: r.subscriber_id,
        subscriber_type: r.subscriber_type,
        attempts: Number(r.attempts),
        max_attempts: Number(r.max_attempts),
        reclaimed_from: r.reclaimed ? { owner: r.previous_owner } : null,
        event,
      };
    });
  return { locked, claimed };
}
