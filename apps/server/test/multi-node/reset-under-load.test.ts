/**
 * (d) A reset applied through server A while server B is under publish and dispatch load. From the
 * moment the reset lock is taken until it is released, B must refuse every mutation
 * (RESET_IN_PROGRESS) and claim no delivery; when the reset ends, nothing of the runs before it
 * may be left, nothing may have been written in between, and B takes load again with every
 * acknowledged event present once and dispatched once.
 *
 * The test watches the database every 20 ms from outside: the reset lock row (runtime_state
 * reset_lock) gives the window, and B's in-progress leases show its claims (B's load is one third
 * slow 800 ms handlers, so a claim stays visible for several samples).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditAndCheck, waitSettled } from './audit';
import { Cluster, waitUntil, type ChaosServer } from './cluster';
import { PublishLoad } from './load';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.onTestDatabase('reset');
}, 60_000);
afterAll(() => cluster?.dispose());

interface Sample {
  at: number;
  lock: { reset_id: string; started_at: string } | undefined;
  /** delivery_id:attempts of every delivery B holds. */
  claims: string[];
}

function watch(server: ChaosServer): { stop(): Promise<Sample[]> } {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const [row] = await cluster.query<{ lock: string | null; claims: string[] }>(
        `select (select value from runtime_state where key = 'reset_lock') as lock,
                array(select delivery_id || ':' || attempts from deliveries where status = 'in_progress' and lease_owner = $1) as claims`,
        [server.serverId],
      );
      samples.push({ at: Date.now(), lock: row!.lock ? JSON.parse(row!.lock) : undefined, claims: row!.claims });
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** Run-scoped rows (what a reset removes) created before `beforeIso`, and created in [fromIso, toIso]. */
async function runScopedRows(beforeIso: string, fromIso: string, toIso: string): Promise<{ before: Record<string, number>; during: Record<string, number> }> {
  const stamped: Record<string, string> = {
    runs: 'created_at',
    events: 'created_at',
    deliveries: 'created_at',
    dead_letters: 'created_at',
    entities: 'created_at',
    mailbox_items: 'created_at',
    conversations: 'started_at',
    turns: 'started_at',
    ingress_queue: 'queued_at',
  };
  const before: Record<string, number> = {};
  const during: Record<string, number> = {};
  for (const [table, column] of Object.entries(stamped)) {
    const [row] = await cluster.query<{ before: number; during: number }>(
      `select count(*) filter (where ${column} < $1)::int as before, count(*) filter (where ${column} >= $2 and ${column} <= $3)::int as during from ${table}`,
      [beforeIso, fromIso, toIso],
    );
    if (row!.before > 0) before[table] = row!.before;
    if (row!.during > 0) during[table] = row!.during;
  }
  const [logs] = await cluster.query<{ before: number; during: number }>(
    `select count(*) filter (where ts < $1)::int as before, count(*) filter (where ts >= $2 and ts <= $3)::int as during
       from logs where run_id is not null or event_id is not null or delivery_id is not null`,
    [beforeIso, fromIso, toIso],
  );
  if (logs!.before > 0) before.logs = logs!.before;
  if (logs!.during > 0) during.logs = logs!.during;
  return { before, during };
}

it('a reset through server A while server B is under load: B refuses mutations and claims nothing until it ends, and nothing is left behind', async () => {
  const [a, b] = (await cluster.startAll(['a', 'b'])) as [ChaosServer, ChaosServer];
  const load = new PublishLoad(cluster, {
    concurrency: 4,
    mix: (n) => (['slow', 'work', 'flaky'] as const)[n % 3]!,
    targets: () => [b],
    keyPrefix: 'reset',
    maxKeys: 4000,
  }).start();
  await load.waitForAcks(40, 30_000);
  // Slow handlers in flight on A make the reset's drain, and so its window, last a while.
  const busyA = new PublishLoad(cluster, { concurrency: 1, mix: () => 'slow', targets: () => [a], keyPrefix: 'busy-a', maxKeys: 6 }).start();
  await busyA.finished();
  await waitUntil(async () => (await cluster.leasesHeldBy(a)) > 0, 3_000);

  const watcher = watch(b);
  await new Promise((r) => setTimeout(r, 100));
  const reset = await cluster.rpc(a.url, 'runtime.nuke', { dry_run: false, reason: 'chaos: reset under load' }, 60_000);
  const resetAnsweredAt = Date.now();
  await load.waitForAcks(30, 20_000);
  await load.stop();
  const samples = await watcher.stop();
  const settled = await waitSettled(cluster, 60_000);

  const locked = samples.filter((s) => s.lock);
  const firstLock = locked[0];
  const lastLock = locked.at(-1);
  const lockGoneAt = firstLock ? (samples.find((s) => s.at > lastLock!.at && !s.lock)?.at ?? resetAnsweredAt) : resetAnsweredAt;
  const inWindow = (c: { sentAt: number; answeredAt: number }) => firstLock !== undefined && c.sentAt >= firstLock.at && c.answeredAt <= lastLock!.at;
  const callsDuringReset = load.calls.filter((c) => c.server === 'b' && inWindow(c));
  const acceptedDuringReset = callsDuringReset.filter((c) => c.outcome === 'ok');
  const refusedDuringReset = callsDuringReset.filter((c) => c.outcome === 'RESET_IN_PROGRESS');
  const overlapping = load.calls.filter((c) => firstLock !== undefined && c.answeredAt >= firstLock.at && c.sentAt <= lastLock!.at);
  const outcomesOverlapping = overlapping.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c.outcome]: (acc[c.outcome] ?? 0) + 1 }), {});
  const latencies = load.calls.map((c) => c.answeredAt - c.sentAt).sort((x, y) => x - y);
  const claimsBefore = new Set(firstLock?.claims ?? []);
  const claimedDuringReset = new Set(locked.flatMap((s) => s.claims).filter((c) => !claimsBefore.has(c)));
  const rows = firstLock
    ? await runScopedRows(firstLock.lock!.started_at, firstLock.lock!.started_at, new Date(lastLock!.at).toISOString())
    : { before: { unknown: -1 }, during: { unknown: -1 } };
  // After the reset: keys whose acknowledged call was sent once the lock was gone.
  const after = [...load.keys.values()].filter((k) => k.acked && load.calls.some((c) => c.key === k.key && c.outcome === 'ok' && c.sentAt >= lockGoneAt));
  await auditAndCheck(cluster, '(d) reset through A while B is under load', after, settled, {
    resetStatus: reset.result?.status ?? JSON.stringify(reset.error),
    resetErrors: reset.result?.errors ?? [],
    lockWindowMs: firstLock ? lastLock!.at - firstLock.at : 'never seen',
    callLatencyMs: { median: latencies[Math.floor(latencies.length / 2)], max: latencies.at(-1) },
    callsOverlappingReset: outcomesOverlapping,
    callsToBDuringReset: callsDuringReset.length,
    refusedDuringReset: refusedDuringReset.length,
    acceptedDuringReset: acceptedDuringReset.length,
    claimedDuringReset: claimedDuringReset.size,
    leftFromBefore: rows.before,
    writtenDuringReset: rows.during,
    afterReset: after.length,
  });

  expect(reset.result?.status).toBe('completed');
  expect(firstLock).toBeDefined();
  expect(callsDuringReset.length).toBeGreaterThan(0);
  expect({ acceptedDuringReset: acceptedDuringReset.length, claimedDuringReset: claimedDuringReset.size }).toEqual({ acceptedDuringReset: 0, claimedDuringReset: 0 });
  expect(rows).toEqual({ before: {}, during: {} });
  expect(after.length).toBeGreaterThan(0);
}, 180_000);
