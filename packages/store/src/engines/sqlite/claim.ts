/**
 * SQLite's claim. One writer at a time: the candidates are read, then taken by one conditional
 * update, all in one transaction, so no other claimer can come between the read and the update.
 */
import type { Kysely, Selectable } from 'kysely';
import { unindexedText } from '../../unindexed-text';
import type { Database, EventsTable } from '../../schema';
import type { ClaimedDeliveryWithEvent, ClaimedRow } from '../engine';

/** Whether a lock row's value (empty when free, else JSON with `expires_at`) is held at `nowIso`. */
function lockIsHeld(value: string, nowIso: string): boolean {
  if (value === '') return false;
  try {
    const expires = (JSON.parse(value) as { expires_at?: unknown }).expires_at;
    return typeof expires === 'string' && expires > nowIso;
  } catch {
    return false;
  }
}

/**
 * Deliveries that may be claimed now, oldest due first. Two index walks, each stopping after
 * `limit` rows, merged here: one query with OR made SQLite sort every due row (growing with the
 * backlog).
 */
export async function dueCandidates(db: Kysely<Database>, nowIso: string, limit: number): Promise<{ delivery_id: string; status: string; lease_owner: string | null }[]> {
  // Each walk reads the index on (status, column) and stops after `limit` rows.
  const walk = (status: 'pending' | 'in_progress', column: 'next_attempt_at' | 'lease_expires_at', before: '<=' | '<') =>
    db
      .selectFrom('deliveries')
      .select(['delivery_id', 'status', 'lease_owner', 'next_attempt_at'])
      .where('status', '=', status)
      .where(column, before, nowIso)
      .orderBy(column)
      .limit(limit)
      .execute();
  const pending = await walk('pending', 'next_attempt_at', '<=');
  const expired = await walk('in_progress', 'lease_expires_at', '<');
  const due = expired.length === 0 ? pending : [...pending, ...expired].sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : 0));
  return due.slice(0, limit).map(({ delivery_id, status, lease_owner }) => ({ delivery_id, status, lease_owner }));
}

/**
 * Takes the given deliveries for `owner` until `leaseUntil`, in one statement: each row is taken
 * only while it is still claimable (pending and due, or in progress with an expired lease), so
 * of two claimers each row goes to one. Returns the rows taken, in the order of `deliveryIds`.
 */
export async function claimByIds(db: Kysely<Database>, deliveryIds: readonly string[], owner: string, leaseUntil: string, nowIso: string): Promise<ClaimedRow[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await db
    .updateTable('deliveries')
    .set((eb) => ({ status: 'in_progress', lease_owner: owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: nowIso }))
    .where('delivery_id', 'in', [...deliveryIds])
    .where((eb) =>
      eb.or([
        eb.and([eb(unindexedText('status'), '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
        eb.and([eb(unindexedText('status'), '=', 'in_progress'), eb('lease_expires_at', '<', nowIso)]),
      ]),
    )
    .returning(['delivery_id', 'event_id', 'run_id', 'subscriber_id', 'subscriber_type', 'attempts', 'max_attempts'])
    .execute();
  const byId = new Map(rows.map((r) => [r.delivery_id, { ...r, attempts: Number(r.attempts), max_attempts: Number(r.max_attempts) }]));
  return deliveryIds.flatMap((id) => byId.get(id) ?? []);
}

/** One transaction: the lock row's read, the candidates' read, the claim and the events' read. */
export function claimDueUnlessLockedOnSqlite(
  db: Kysely<Database>,
  { lockKey, owner, leaseUntil, nowIso, limit }: { lockKey: string; owner: string; leaseUntil: string; nowIso: string; limit: number },
): Promise<{ locked: boolean; claimed: ClaimedDeliveryWithEvent[] }> {
  return db.transaction().execute(async (trx) => {
    const lock = await trx.selectFrom('runtime_state').select('value').where('key', '=', lockKey).executeTakeFirst();
    if (lock && lockIsHeld(lock.value, nowIso)) return { locked: true, claimed: [] };
    const candidates = await dueCandidates(trx, nowIso, limit);
    if (candidates.length === 0) return { locked: false, claimed: [] };
    const byId = new Map(candidates.map((c) => [c.delivery_id, c]));
    const taken = await claimByIds(trx, [...byId.keys()], owner, leaseUntil, nowIso);
    if (taken.length === 0) return { locked: false, claimed: [] };
    const eventIds = [...new Set(taken.map((d) => d.event_id))];
    const events = new Map<string, Selectable<EventsTable>>((await trx.selectFrom('events').selectAll().where('event_id', 'in', eventIds).execute()).map((e) => [e.event_id, e]));
    return {
      locked: false,
      claimed: taken.map((row) => {
        const c = byId.get(row.delivery_id)!;
        return { ...row, reclaimed_from: c.status === 'in_progress' ? { owner: c.lease_owner } : null, event: events.get(row.event_id)! };
      }),
    };
  });
}
