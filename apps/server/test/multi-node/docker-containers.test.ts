/**
 * Managed containers on a real Docker engine with two servers on one PostgreSQL database: one server
 * (the oldest live one) manages them, so entities published through either server get one container
 * each, never one per server; when that server is killed, the other takes over, starts containers
 * for new entities and none for the old ones (still running), and its reset stops them all.
 * Skipped, with a line saying why, where no engine runs (never under CI=true).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE } from '../control-helpers';
import { realDocker } from '../docker-engine';
import { scrapedValue } from '../metrics-scrape';
import { CHAOS_TOKEN, Cluster, type ChaosServer } from './cluster';

const docker = await realDocker('multi-node/docker-containers.test.ts');

let cluster: Cluster | undefined;
let a: ChaosServer;
let b: ChaosServer;

beforeAll(async () => {
  if (!docker) return;
  // A beat of 250 ms: the supervisor sweeps every 5 beats, so the waits below for sweeps are short.
  cluster = await Cluster.onTestDatabase('docker', { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_SERVER_BEAT_MS: '250', ...docker.env() });
  [a, b] = (await cluster.startAll(['a', 'b'])) as [ChaosServer, ChaosServer];
}, 200_000);
afterAll(() => cluster?.dispose());

/** The container supervisor's passes on `server` so far (its /metrics). */
async function sweeps(server: ChaosServer): Promise<number> {
  return scrapedValue(server.url, CHAOS_TOKEN, 'switchboard_container_sweeps_total');
}

/**
 * Waits for three more passes of `server`'s supervisor to end: the first may have read the store
 * before this call, the second read it after, and the third came a sweep interval after the second
 * scheduled its starts: a container it would have started twice has had its time.
 */
async function sweepsAfterNow(server: ChaosServer): Promise<void> {
  const from = await sweeps(server);
  await expect.poll(() => sweeps(server), { timeout: 30_000, interval: 100, message: 'the supervisor sweeps' }).toBeGreaterThanOrEqual(from + 3);
}

/** One container per entity, whichever server the publish went through. */
function perEntity(containers: { Labels: Record<string, string> }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of containers) out[c.Labels['switchboard.entity_id']!] = (out[c.Labels['switchboard.entity_id']!] ?? 0) + 1;
  return out;
}

it.skipIf(!docker)('one server manages the containers: one per entity, taken over when that server dies', async () => {
  const engine = docker!;
  const c = cluster!;
  const publish = (server: ChaosServer, n: number) =>
    c.ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: `${engine.tag}-${n}`, amount: n }, entity_id: `order-${engine.tag}-${n}` });

  const servers = (await c.ok(b, 'health.check')).servers as { server_id: string }[];
  expect(servers.map((n) => n.server_id)).toEqual(expect.arrayContaining([a.serverId, b.serverId]));

  for (const n of [1, 2, 3, 4]) await publish(n % 2 ? a : b, n);
  const first = [1, 2, 3, 4].map((n) => `order-${engine.tag}-${n}`);
  const running = await engine.waitForRunning(first, 30_000);
  // A (the oldest) supervises: sweeps later, still one container per entity.
  await sweepsAfterNow(a);
  expect(perEntity(await engine.containers())).toEqual(Object.fromEntries(first.map((e) => [e, 1])));
  const records = await c.query<{ container_id: string; status: string }>(`select container_id, status from containers order by container_id`);
  expect(records).toEqual(running.map((r) => ({ container_id: r.Id, status: 'running' })).sort((x, y) => x.container_id.localeCompare(y.container_id)));

  // The managing server (A, the oldest) dies; its containers run on, B takes over.
  await c.kill(a);
  await publish(b, 5);
  const all = [...first, `order-${engine.tag}-5`];
  await engine.waitForRunning(all, 30_000);
  await sweepsAfterNow(b);
  expect(perEntity(await engine.containers())).toEqual(Object.fromEntries(all.map((e) => [e, 1])));
  const ids = (await engine.running()).map((x) => x.Id).sort();

  const result = await c.ok(b, 'runtime.nuke', { dry_run: false });
  expect(result).toMatchObject({ ok: true, status: 'completed', containers: { implementation: 'docker', failed: [] } });
  expect([...(result.containers.stopped as string[])].sort()).toEqual(ids);
  expect(await engine.containers()).toEqual([]);
}, 240_000);
