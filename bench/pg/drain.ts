/** The drain scenario: a queued backlog made due at once, claimed and completed by the servers. */
import { BACKLOG_AHEAD_MS, type Cluster } from './cluster';
import { WARMUP_DELIVERIES, sleep } from './settings';

/**
 * Whether any delivery is open, each status read through its own index (PostgreSQL's partial claim
 * indexes): one row at most. Counting them instead (openCount) read every open row on each 50 ms
 * poll, PostgreSQL CPU taken from the servers being measured (bench/README.md, "Why the
 * warm-ups"). The backlog not yet made due (BACKLOG_AHEAD_MS) does not count; a retry
 * waiting for its backoff (milliseconds to seconds) does.
 */
export async function anyOpenDelivery(c: Cluster): Promise<boolean> {
  const db = c.packages.databaseOf(c.store);
  const parkedFrom = new Date(Date.now() + BACKLOG_AHEAD_MS / 2).toISOString();
  const pending = await db.selectFrom('deliveries').select('delivery_id').where('status', '=', 'pending').where('next_attempt_at', '<', parkedFrom).limit(1).executeTakeFirst();
  if (pending !== undefined) return true;
  return (await db.selectFrom('deliveries').select('delivery_id').where('status', '=', 'in_progress').limit(1).executeTakeFirst()) !== undefined;
}

/** Waits for the servers to finish every open delivery; the figures come from the rows' timestamps, not from when this noticed. */
export async function untilNoOpenDelivery(c: Cluster, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await anyOpenDelivery(c)) {
    if (Date.now() > deadline) throw new Error(`deliveries still open after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

export interface Drain {
  perSecond: number;
  delivered: number;
  failed: number;
}

/** The untimed part of the backlog (WARMUP_DELIVERIES, the first by id), then the rest, timed. */
export async function drainBacklog(c: Cluster): Promise<{ warmup?: Drain; timed: Drain }> {
  const warmup = WARMUP_DELIVERIES > 0 ? await drainDue(c, WARMUP_DELIVERIES) : undefined;
  return { warmup, timed: await drainDue(c) };
}

/**
 * Makes `limit` (all when undefined) of the backlog due at once and waits until the servers finished
 * them; the figure counts completions stamped from then on, so an earlier drain is not in it.
 */
export async function drainDue(c: Cluster, limit?: number): Promise<Drain> {
  const db = c.packages.databaseOf(c.store);
  const since = new Date().toISOString();
  // Recorded as a change of deliveries, as another process's write of deliveries is: the servers
  // hear of it and claim now. Unrecorded, each server found the backlog at its next idle poll (up to
  // 250 ms apart), and the figure counted the later one's wait from the first completion on.
  await c.store.transaction(async (tx) => {
    c.store.changes.mark(tx, 'deliveries');
    const trx = c.packages.databaseOfTransaction(tx);
    let makeDue = trx.updateTable('deliveries').set({ next_attempt_at: since }).where('status', '=', 'pending');
    if (limit !== undefined) makeDue = makeDue.where('delivery_id', 'in', trx.selectFrom('deliveries').select('delivery_id').where('status', '=', 'pending').orderBy('delivery_id').limit(limit));
    await makeDue.execute();
  });
  await untilNoOpenDelivery(c, 300_000);
  const done = await db
    .selectFrom('deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('updated_at').as('first'), eb.fn.max('updated_at').as('last')])
    .where('subscriber_id', '=', 'noop')
    .where('status', '=', 'delivered')
    .where('updated_at', '>=', since)
    .executeTakeFirstOrThrow();
  // Pending ones left are the backlog's timed part, not yet due.
  const failed = await db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'not in', ['delivered', 'pending']).executeTakeFirstOrThrow();
  const windowMs = Math.max(1, Date.parse(String(done.last)) - Date.parse(String(done.first)));
  return { perSecond: (Number(done.n) * 1000) / windowMs, delivered: Number(done.n), failed: Number(failed.n) };
}
