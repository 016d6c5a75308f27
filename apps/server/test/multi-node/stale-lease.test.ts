/**
 * (f) A lease that expires while its handler still runs: server A is frozen (SIGSTOP, as in a long
 * pause) while it runs slow agent deliveries; their leases lapse, server B claims and runs them
 * again, and then A wakes up and finishes its now stale attempts. A's completions must be
 * discarded: each delivery completes once, its effect (one turn, one slow.done) exists once.
 * Two orders: A wakes after B has completed the delivery, and while B is still running it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditAndCheck, waitSettled } from './audit';
import { Cluster, waitUntil, type ChaosServer } from './cluster';
import { PublishLoad, type KeyRecord } from './load';

let cluster: Cluster;
/** The server frozen under its handlers; the second server ('b') is the one that takes its deliveries over. */
let a: ChaosServer;

beforeAll(async () => {
  cluster = await Cluster.onTestDatabase('lease');
  [a] = (await cluster.startAll(['a', 'b'])) as [ChaosServer, ChaosServer];
}, 200_000);
afterAll(() => cluster?.dispose());

interface Held {
  delivery_id: string;
  attempts: number;
}

/** Publishes slow events through A until A runs some of them, then freezes A: the deliveries it holds then, and every key published. */
async function freezeWhileRunning(prefix: string): Promise<{ held: Held[]; keys: KeyRecord[] }> {
  const keys: KeyRecord[] = [];
  for (let round = 0; round < 10; round++) {
    const load = new PublishLoad(cluster, { concurrency: 1, mix: () => 'slow', targets: () => [a], keyPrefix: `${prefix}-${round}`, maxKeys: 4 }).start();
    await load.finished();
    keys.push(...load.keys.values());
    // A and B both claim: A may have got none of this round. Freeze A in the middle of a slow
    // handler's 800 ms model call, so that on waking the handler succeeds and A tries to complete.
    if (await waitUntil(async () => (await claimAgesOnA()).some((age) => age >= 200 && age <= 600), 3_000, 10)) {
      cluster.pause(a);
      // Frozen inside a transaction, A would hold row locks that stall B until A wakes (no lease
      // can expire under a lock): that is another test. Only a freeze between transactions counts.
      await new Promise((r) => setTimeout(r, 50));
      const held = await cluster.query<Held & Record<string, unknown>>(`select delivery_id, attempts from deliveries where status = 'in_progress' and lease_owner = $1`, [a.serverId]);
      if (held.length > 0 && (await cluster.openTransactionsOf(a)) === 0) return { held, keys };
      cluster.resume(a);
    }
  }
  throw new Error('server A never held a slow delivery to be frozen with');
}

const LEASE_MS = 2_000;

/** How long ago A claimed each delivery it holds (the lease ends LEASE_MS after the claim). */
async function claimAgesOnA(): Promise<number[]> {
  const rows = await cluster.query<{ lease_expires_at: string }>(`select lease_expires_at from deliveries where status = 'in_progress' and lease_owner = $1`, [a.serverId]);
  return rows.map((r) => Date.now() - (Date.parse(r.lease_expires_at) - LEASE_MS));
}

async function inFlightOn(server: ChaosServer): Promise<number> {
  const health = await cluster.ok(server, 'health.check');
  // Right after waking, a server taken over is not listed until its next heartbeat registers it again.
  const self = health.servers.find((n: { self: boolean }) => n.self);
  return self ? self.in_flight_handlers : Number.NaN;
}

/** Wakes A, then waits until A has finished every handler it was running (its stale attempts). */
async function wakeAndDrain(): Promise<boolean> {
  cluster.resume(a);
  return waitUntil(async () => (await inFlightOn(a)) === 0, 20_000, 100);
}

async function leaseLostLogs(held: Held[]): Promise<number> {
  const rows = await cluster.query<{ message: string }>(`select message from logs where error_code = 'LEASE_LOST'`);
  return held.filter((h) => rows.some((r) => r.message.includes(h.delivery_id))).length;
}

async function deliveriesOf(held: Held[]): Promise<{ delivery_id: string; status: string; attempts: number; lease_owner: string | null }[]> {
  return cluster.query(`select delivery_id, status, attempts, lease_owner from deliveries where delivery_id = any($1)`, [held.map((h) => h.delivery_id)]);
}

it('a frozen server that wakes after its deliveries were completed elsewhere has its completions discarded', async () => {
  const { held, keys } = await freezeWhileRunning('late');
  // B claims them once their leases lapse (or A is taken over) and completes them.
  const completedElsewhere = await waitUntil(async () => (await deliveriesOf(held)).every((d) => d.status === 'delivered' || d.status === 'failed'), 20_000, 50);
  const drained = await wakeAndDrain();
  const settled = await waitSettled(cluster, 20_000);
  const final = await deliveriesOf(held);
  const leaseLost = await leaseLostLogs(held);
  await auditAndCheck(cluster, '(f) stale completion after the new owner completed', keys, settled, {
    frozenWith: held.length,
    completedElsewhere,
    drained,
    leaseLostLogged: leaseLost,
    final,
  });

  expect(completedElsewhere).toBe(true);
  expect(drained).toBe(true);
  for (const d of final) expect(d.attempts).toBeGreaterThan(held.find((h) => h.delivery_id === d.delivery_id)!.attempts);
}, 90_000);

it('a frozen server that wakes while the new owner still runs the delivery has its completion discarded', async () => {
  const { held, keys } = await freezeWhileRunning('early');
  // Wake A as soon as B has claimed them again, before B's 800 ms handlers can finish.
  // Each one seen at least once in progress under B's lease (B claims them as their leases lapse,
  // one by one, so all of them at the same moment is not guaranteed on a busy machine).
  const seenWithB = new Set<string>();
  const reclaimed = await waitUntil(async () => {
    for (const d of await deliveriesOf(held)) if (d.status === 'in_progress' && d.lease_owner !== null && d.lease_owner !== a.serverId) seenWithB.add(d.delivery_id);
    return seenWithB.size === held.length;
  }, 20_000, 20);
  const drained = await wakeAndDrain();
  const settled = await waitSettled(cluster, 20_000);
  const final = await deliveriesOf(held);
  const leaseLost = await leaseLostLogs(held);
  await auditAndCheck(cluster, '(f) stale completion while the new owner runs', keys, settled, {
    frozenWith: held.length,
    reclaimed,
    drained,
    leaseLostLogged: leaseLost,
    final,
  });

  expect(reclaimed).toBe(true);
  expect(drained).toBe(true);
  for (const d of final) expect(d.attempts).toBeGreaterThan(held.find((h) => h.delivery_id === d.delivery_id)!.attempts);
}, 90_000);
