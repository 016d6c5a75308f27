/**
 * Managed containers on a real Docker engine (Debian's docker.io with an image imported from
 * busybox-static; see scripts/test-docker.mjs): a container per entity is started, with no network
 * and the managed labels, and a reset stops and removes every one of them. A stop that fails (the
 * engine unreachable at the time of the reset: the server talks to it through a socket of the
 * test's, which is cut) makes the reset a partial_failure naming each
 * container, which keeps running, and the next reset stops them. A start cut short after the
 * engine started the container leaves a record under the container's name, which the next boot
 * adopts and a reset stops. Skipped, with a line saying why,
 * where no engine runs (never under CI=true). Runs on SQLite and, in the PostgreSQL pass, on PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DockerEngineManager } from '@switchboard/runtime';
import { systemClock, type Store } from '@switchboard/store';
import { databaseOf, openTestStore } from '@switchboard/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_BUNDLE, ok, openOrderItem, pidAlive, waitForQuiet } from './control-helpers';
import { engineProxy, realDocker, type EngineProxy } from './docker-engine';
import { startTestServer, type TestServer } from './harness';

const docker = await realDocker('docker-engine.test.ts');

describe.skipIf(!docker)('managed containers on a real Docker engine', () => {
  const engine = docker!;
  let server: TestServer;
  let dir: string;
  /** The server's way to the engine, cut to make the engine unreachable. */
  let proxy: EngineProxy;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-docker-engine-'));
    proxy = await engineProxy(engine.socket, path.join(dir, 'docker.sock'));
    server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, ...engine.env(proxy.socket) } });
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const records = () => databaseOf(server.store).selectFrom('containers').selectAll().orderBy('entity_id').execute();

  /** Publishes orders (each makes an order entity of a managed type) and waits for their containers. */
  async function ordersWithContainers(names: string[]) {
    const entityIds: string[] = [];
    for (const name of names) entityIds.push((await openOrderItem(server, `${engine.tag}-${name}`)).entity_id);
    const running = await engine.waitForRunning(entityIds);
    await expect.poll(async () => (await records()).filter((r) => r.status === 'running').length === entityIds.length, { timeout: 10_000, message: 'the container records' }).toBe(true);
    await waitForQuiet(server);
    return { entityIds, running };
  }

  it('starts one labelled container per entity, with no network, recorded under the engine id', async () => {
    const { entityIds, running } = await ordersWithContainers(['a', 'b']);
    const rows = await records();
    expect(rows.map((r) => r.entity_id)).toEqual(entityIds.sort());
    for (const row of rows) {
      const container = running.find((c) => c.Id === row.container_id);
      expect(container, `engine container ${row.container_id}`).toBeDefined();
      expect(container).toMatchObject({
        Image: engine.image,
        State: 'running',
        HostConfig: { NetworkMode: 'none' },
        Labels: { 'switchboard.managed': 'true', 'switchboard.entity_id': row.entity_id, 'switchboard.entity_type': 'order' },
      });
      expect(row).toMatchObject({ implementation: 'docker', status: 'running' });
      // The recorded pid is the container's process, as seen from the host.
      const state = await engine.inspect(row.container_id);
      expect(state).toMatchObject({ Running: true, Pid: row.pid });
      expect(pidAlive(row.pid!)).toBe(true);
    }
    // A second event for the same entity starts nothing more.
    await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: `${engine.tag}-a`, amount: 2 }, entity_id: entityIds[0]! });
    await waitForQuiet(server);
    expect((await engine.containers()).length).toBe(2);
  });

  it('a reset stops and removes every managed container', async () => {
    const before = await engine.running();
    expect(before.length).toBe(2);
    const dry = await ok(server, 'runtime.nuke', { dry_run: true });
    expect(dry.containers).toMatchObject({ implementation: 'docker', count: 2 });
    expect((await engine.running()).length).toBe(2);

    const started = Date.now();
    const result = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(result).toMatchObject({ ok: true, status: 'completed', containers: { implementation: 'docker', failed: [], already_stopped: [] } });
    expect([...(result.containers.stopped as string[])].sort()).toEqual(before.map((c) => c.Id).sort());
    // The containers exit on the stop's SIGTERM: no stop waits out its timeout (5 s) before a kill.
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const c of before) expect(await engine.inspect(c.Id)).toBeUndefined();
    expect(await engine.containers()).toEqual([]);
    expect(await records()).toEqual([]);
  });

  it('a stop that fails makes the reset a partial_failure naming each container; the next reset stops them', async () => {
    const { running } = await ordersWithContainers(['c', 'd']);
    const ids = running.map((c) => c.Id).sort();
    await proxy.cut();
    let result: any;
    try {
      result = await ok(server, 'runtime.nuke', { dry_run: false });
    } finally {
      await proxy.restore();
    }
    expect(result).toMatchObject({ ok: false, partial_failure: true, status: 'partial_failure', containers: { stopped: [] } });
    expect(result.errors.map((e: { scope: string }) => e.scope)).toEqual(['containers', 'containers']);
    for (const id of ids) expect(result.errors.some((e: { message: string }) => e.message.includes(id) && /unreachable/.test(e.message))).toBe(true);
    expect(result.containers.failed.map((f: { container_id: string }) => f.container_id).sort()).toEqual(ids);
    // Still running on the engine, and recorded for the next reset.
    expect((await engine.running()).map((c) => c.Id).sort()).toEqual(ids);
    expect((await records()).map((r) => [r.container_id, r.status]).sort()).toEqual(ids.map((id) => [id, 'stop_failed']));

    const retry = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(retry).toMatchObject({ ok: true, status: 'completed' });
    expect([...(retry.containers.stopped as string[])].sort()).toEqual(ids);
    expect(await engine.containers()).toEqual([]);
    expect(await records()).toEqual([]);
  });
});

describe.skipIf(!docker)('a start cut short on a real Docker engine', () => {
  const engine = docker!;
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-docker-start-'));
    store = await openTestStore(dir);
  });
  afterAll(async () => {
    await store?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const manager = () => new DockerEngineManager({ store, clock: systemClock, socketPath: engine.socket, image: engine.image, stopTimeoutSeconds: 1 });
  const rows = () => databaseOf(store).selectFrom('containers').select(['container_id', 'entity_id', 'status']).orderBy('entity_id').execute();

  it('a container the engine started before the runtime died is recorded under its name, adopted by the next boot pass and stopped', async () => {
    const dying = manager();
    // The runtime dies right after the engine started the container: the record's last write never comes.
    (dying as unknown as { records: { rename: () => Promise<void> } }).records.rename = () => new Promise<void>(() => undefined);
    void dying.start({ entityId: `order-${engine.tag}-cut`, entityType: 'order' });
    const [container] = await engine.waitForRunning([`order-${engine.tag}-cut`]);
    const [record] = await rows();
    // Recorded before the create, under the container's name: a reset (or the next boot) finds it.
    expect(record).toMatchObject({ entity_id: `order-${engine.tag}-cut`, status: 'starting', container_id: expect.stringMatching(/^switchboard-order-/) });
    expect(container!.Id).not.toBe(record!.container_id);

    const next = manager();
    await next.recover();
    expect(await rows()).toEqual([{ container_id: container!.Id, entity_id: `order-${engine.tag}-cut`, status: 'running' }]);
    expect(await next.stop(container!.Id)).toMatchObject({ ok: true, alreadyStopped: false });
    expect(await engine.containers()).toEqual([]);
    expect(await rows()).toEqual([]);
  });

  it('a reset stops such a container by its name; a record whose container was never created is dropped', async () => {
    const dying = manager();
    (dying as unknown as { records: { rename: () => Promise<void> } }).records.rename = () => new Promise<void>(() => undefined);
    void dying.start({ entityId: `order-${engine.tag}-byname`, entityType: 'order' });
    await engine.waitForRunning([`order-${engine.tag}-byname`]);
    const [record] = await rows();
    const next = manager();
    expect(await next.stop(record!.container_id)).toEqual({ ok: true, containerId: record!.container_id, entityId: `order-${engine.tag}-byname`, alreadyStopped: false });
    expect(await engine.containers()).toEqual([]);
    expect(await rows()).toEqual([]);

    // Died before the create: the record names a container the engine never made.
    await databaseOf(store)
      .insertInto('containers')
      .values({ container_id: 'switchboard-never-created', entity_id: 'order-never', implementation: 'docker', status: 'starting', pid: null, started_at: new Date().toISOString(), stopped_at: null, last_error: null })
      .execute();
    await next.recover();
    expect(await rows()).toEqual([]);
  });
});
