/**
 * Managed containers on a real Docker engine outlive a kill -9 of the server that started them:
 * they keep running, a fresh server on the same store starts no second container for their
 * entities, and its reset finds and stops every one of them. Skipped, with a line saying why,
 * where no engine runs (never under CI=true). On SQLite, and on PostgreSQL in that pass.
 */
import { testDatabaseFor } from '@switchboard/store/testing';
import { expect, it } from 'vitest';

import { crashServers } from './crash-servers';
import { realDocker } from './docker-engine';
import { scrapedValue } from './metrics-scrape';

const docker = await realDocker('docker-engine-crash.test.ts');
const TOKEN = 'sbk_docker_engine_crash_token_0001';
const servers = crashServers('docker-crash', TOKEN);

it.skipIf(!docker)('containers outlive a kill -9 of the server, and the next server’s reset finds and stops them', async () => {
  const engine = docker!;
  const databaseUrl = await testDatabaseFor(servers.dataDir);
  // A beat of 250 ms: the supervisor sweeps every 5 beats, so the wait below for sweeps is short.
  const env = { ...engine.env(), SWITCHBOARD_SERVER_BEAT_MS: '250', ...(databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : {}) };

  const first = await servers.start(env);
  const entityIds = [`order-${engine.tag}-1`, `order-${engine.tag}-2`];
  for (const [i, entity_id] of entityIds.entries()) {
    await servers.rpc(first.url, 'event.publish', { event_name: 'order.placed', payload: { order_id: `${engine.tag}-${i + 1}`, amount: 5 }, entity_id });
  }
  const running = await engine.waitForRunning(entityIds);
  const ids = running.map((c) => c.Id).sort();
  // Recorded too (the record is written right after the engine's start answers).
  await expect.poll(async () => (await servers.rpc(first.url, 'runtime.nuke', { dry_run: true })).containers.count === 2, { timeout: 10_000, message: 'both container records' }).toBe(true);

  first.child.kill('SIGKILL');
  await first.exited;
  expect((await engine.running()).map((c) => c.Id).sort()).toEqual(ids);

  const second = await servers.start(env);
  const preview = await servers.rpc(second.url, 'runtime.nuke', { dry_run: true });
  expect((preview.containers.would_stop as { container_id: string }[]).map((c) => c.container_id).sort()).toEqual(ids);
  // Its boot pass (on PostgreSQL, its taking over from the dead server once that is declared dead,
  // 5 s on) inspects the recorded containers; two sweeps after it, it has started none for their
  // entities.
  const sweeps = () => scrapedValue(second.url, TOKEN, 'switchboard_container_sweeps_total');
  await expect.poll(sweeps, { timeout: 30_000, interval: 100, message: 'the boot pass and two sweeps' }).toBeGreaterThanOrEqual(3);
  expect((await engine.containers()).map((c) => c.Id).sort()).toEqual(ids);

  const result = await servers.rpc(second.url, 'runtime.nuke', { dry_run: false });
  expect(result).toMatchObject({ ok: true, status: 'completed', containers: { implementation: 'docker', failed: [] } });
  expect([...(result.containers.stopped as string[])].sort()).toEqual(ids);
  expect(await engine.containers()).toEqual([]);
  second.child.kill('SIGTERM');
  await second.exited;
}, 180_000);
