import fs from 'node:fs';
import { databaseOf, openTestStore } from '@switchboard/store/testing';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store, systemClock } from '@switchboard/store';
import { startFakeDockerEngine, type FakeDockerEngine } from '../../test/fake-docker-engine';
import { DEFAULT_DOCKER_CONTAINER_COMMAND, DockerEngineManager } from './docker-engine-manager';
import { LocalProcessManager } from './local-process-manager';

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-containers-'));
  store = await openTestStore(dir);
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the process ignores SIGTERM yet (its shell has run `trap '' TERM`), from /proc. */
function ignoresSigterm(pid: number): boolean {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('SigIgn:'));
  return line !== undefined && (BigInt(`0x${line.slice('SigIgn:'.length).trim()}`) & (1n << 14n)) !== 0n;
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('LocalProcessManager', () => {
  it('starts a supervised child per entity, records it, and stops it with SIGTERM', async () => {
    const manager = new LocalProcessManager({ store, clock: systemClock, stopTimeoutMs: 2_000 });
    try {
      const record = await manager.start({ entityId: 'ent_1', entityType: 'ticket' });
      expect(record).toMatchObject({ entity_id: 'ent_1', implementation: 'local', status: 'running' });
      expect(record.pid).toBeGreaterThan(0);
      expect(alive(record.pid!)).toBe(true);
      expect(await manager.inspect(record.container_id)).toMatchObject({ running: true, pid: record.pid });
      expect((await manager.listStoppable()).map((r) => r.container_id)).toEqual([record.container_id]);

      const outcome = await manager.stop(record.container_id);
      expect(outcome).toEqual({ ok: true, containerId: record.container_id, entityId: 'ent_1', alreadyStopped: false });
      expect(alive(record.pid!)).toBe(false);
      expect(await databaseOf(store).selectFrom('containers').selectAll().execute()).toEqual([]);
    } finally {
      await manager.close();
    }
  });

  it('reports a container that ignores SIGTERM as a stop failure naming it, and keeps its record', async () => {
    const manager = new LocalProcessManager({ store, clock: systemClock, command: `trap '' TERM; read _`, stopTimeoutMs: 300 });
    try {
      const record = await manager.start({ entityId: 'ent_stubborn', entityType: 'ticket' });
      // A SIGTERM sent before the shell has set its trap would simply end it (seen on a loaded machine).
      await waitUntil(() => ignoresSigterm(record.pid!));
      const outcome = await manager.stop(record.container_id);
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.containerId).toBe(record.container_id);
      expect(outcome.error).toContain(record.container_id);
      expect(outcome.error).toContain('did not exit within 300 ms');
      expect(alive(record.pid!)).toBe(true);
      const row = await databaseOf(store).selectFrom('containers').selectAll().executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'stop_failed', container_id: record.container_id });
      expect(row.last_error).toContain('SIGTERM');
    } finally {
      await manager.close();
    }
  });

  it('restarts a process that exits on its own, up to the restart limit, then marks it failed', async () => {
    const manager = new LocalProcessManager({ store, clock: systemClock, command: 'exit 3', restartLimit: 2, restartBackoffMs: 10 });
    try {
      const record = await manager.start({ entityId: 'ent_crashy', entityType: 'ticket' });
      await waitUntil(async () => (await databaseOf(store).selectFrom('containers').select('status').executeTakeFirst())?.status === 'failed');
      const row = await databaseOf(store).selectFrom('containers').selectAll().executeTakeFirstOrThrow();
      expect(row.container_id).toBe(record.container_id);
      expect(row.last_error).toContain('restart limit of 2');
      // A failed container still counts as something a reset must clear; its stop is trivially done.
      expect(await manager.stop(record.container_id)).toMatchObject({ ok: true, alreadyStopped: true });
    } finally {
      await manager.close();
    }
  });

  it('ends on the status it wrote last when a write of the same container is slow (a restart quicker than its "restarting")', async () => {
    const manager = new LocalProcessManager({ store, clock: systemClock, command: 'exit 3', restartLimit: 2, restartBackoffMs: 10 });
    const records = (manager as unknown as { records: { update: (id: string, patch: { status?: string }) => Promise<void> } }).records;
    const update = records.update.bind(records);
    // On PostgreSQL two writes in flight run on two connections and may commit in either order:
    // here each "restarting" is held back past the restart's own writes.
    records.update = async (id, patch) => {
      if (patch.status === 'restarting') await new Promise((r) => setTimeout(r, 300));
      return update(id, patch);
    };
    const status = async () => (await databaseOf(store).selectFrom('containers').select('status').executeTakeFirst())?.status;
    try {
      await manager.start({ entityId: 'ent_slow_write', entityType: 'ticket' });
      await waitUntil(async () => (await status()) === 'failed');
    } finally {
      // Waits for every write still in flight.
      await manager.close();
    }
    expect(await status()).toBe('failed');
  });

  it('refuses to start beyond its container limit', async () => {
    const manager = new LocalProcessManager({ store, clock: systemClock, maxContainers: 1 });
    try {
      await manager.start({ entityId: 'a', entityType: 't' });
      await expect(manager.start({ entityId: 'b', entityType: 't' })).rejects.toThrow(/container limit reached/);
    } finally {
      await manager.close();
    }
  });

  it('does not pass the runtime environment (secrets) to containers', async () => {
    process.env.SWITCHBOARD_TOKEN_PROBE = 'secret-value';
    const out = path.join(dir, 'env.txt');
    const manager = new LocalProcessManager({ store, clock: systemClock, command: `env > ${out}; read _` });
    try {
      await manager.start({ entityId: 'ent_env', entityType: 'ticket' });
      await waitUntil(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('SWITCHBOARD_ENTITY_ID'));
      const env = fs.readFileSync(out, 'utf8');
      expect(env).toContain('SWITCHBOARD_ENTITY_ID=ent_env');
      expect(env).not.toContain('secret-value');
    } finally {
      delete process.env.SWITCHBOARD_TOKEN_PROBE;
      await manager.close();
    }
  });

  it('kills children on close and restarts recorded containers after a runtime restart', async () => {
    const first = new LocalProcessManager({ store, clock: systemClock });
    const record = await first.start({ entityId: 'ent_r', entityType: 'ticket' });
    await first.close();
    expect(alive(record.pid!)).toBe(false);
    // Simulate a crash: the record still says running.
    await databaseOf(store).updateTable('containers').set({ status: 'running' }).execute();
    const second = new LocalProcessManager({ store, clock: systemClock });
    try {
      const recovered = await second.recoverAfterRestart(new Map([['ent_r', 'ticket']]));
      expect(recovered.restarted).toEqual([record.container_id]);
      expect(await second.inspect(record.container_id)).toMatchObject({ running: true });
    } finally {
      await second.close();
    }
  });
});

describe('DockerEngineManager (fake Engine API on a Unix socket)', () => {
  let engine: FakeDockerEngine;
  beforeEach(async () => {
    engine = await startFakeDockerEngine(path.join(dir, 'docker.sock'));
  });
  afterEach(async () => {
    await engine.close();
  });

  const manager = () => new DockerEngineManager({ store, clock: systemClock, socketPath: engine.socketPath, image: 'busybox:1.36', stopTimeoutSeconds: 1 });

  it('creates and starts a labelled container, inspects it, then stops and removes it', async () => {
    const m = manager();
    const record = await m.start({ entityId: 'ent_d', entityType: 'ticket' });
    const fake = engine.containers.get(record.container_id)!;
    expect(fake).toMatchObject({ Image: 'busybox:1.36', running: true });
    expect(fake.Labels['switchboard.entity_id']).toBe('ent_d');
    expect(fake.Env).toContain('SWITCHBOARD_ENTITY_ID=ent_d');
    expect(fake.Cmd).toEqual(DEFAULT_DOCKER_CONTAINER_COMMAND);
    expect(fake.HostConfig).toEqual({ NetworkMode: 'none' });
    expect(record).toMatchObject({ implementation: 'docker', status: 'running', pid: fake.pid });
    expect(await m.inspect(record.container_id)).toMatchObject({ running: true, status: 'running' });

    expect(await m.stop(record.container_id)).toEqual({ ok: true, containerId: record.container_id, entityId: 'ent_d', alreadyStopped: false });
    expect(fake).toMatchObject({ running: false, removed: true });
    expect(engine.calls.map((c) => `${c.method} ${c.path.replace(record.container_id, '<id>').replace(/\?name=.*/, '?name=…')}`)).toEqual([
      'GET /version',
      'POST /v1.41/containers/create?name=…',
      'POST /v1.41/containers/<id>/start',
      'GET /v1.41/containers/<id>/json',
      'GET /v1.41/containers/<id>/json',
      'POST /v1.41/containers/<id>/stop?t=1',
      'DELETE /v1.41/containers/<id>',
    ]);
    expect(await databaseOf(store).selectFrom('containers').selectAll().execute()).toEqual([]);
  });

  it('reports an engine stop failure with the container id and keeps the record as stop_failed', async () => {
    const m = manager();
    const record = await m.start({ entityId: 'ent_stuck', entityType: 'ticket' });
    engine.refuseStopFor.add('ent_stuck');
    const outcome = await m.stop(record.container_id);
    expect(outcome).toMatchObject({ ok: false, containerId: record.container_id, entityId: 'ent_stuck' });
    if (!outcome.ok) expect(outcome.error).toMatch(new RegExp(`docker stop of ${record.container_id} failed: HTTP 500: cannot stop container`));
    expect(await databaseOf(store).selectFrom('containers').select('status').executeTakeFirst()).toEqual({ status: 'stop_failed' });
  });

  it('treats a container the engine no longer knows as already stopped', async () => {
    const m = manager();
    const record = await m.start({ entityId: 'ent_gone', entityType: 'ticket' });
    engine.containers.delete(record.container_id);
    expect(await m.stop(record.container_id)).toMatchObject({ ok: true, alreadyStopped: true });
  });

  it('fails a start with the engine message (unknown image) and records nothing', async () => {
    const m = new DockerEngineManager({ store, clock: systemClock, socketPath: engine.socketPath, image: 'nope:1' });
    await expect(m.start({ entityId: 'x', entityType: 't' })).rejects.toThrow(/docker create failed: HTTP 404: No such image: nope:1 \(images are never pulled/);
    expect(await databaseOf(store).selectFrom('containers').selectAll().execute()).toEqual([]);
  });

  it('records a start before the create, under the name, so a start cut short is adopted by the next boot pass', async () => {
    const dying = manager();
    // The runtime dies once the engine has started the container: the record's last write never comes.
    (dying as unknown as { records: { rename: () => Promise<void> } }).records.rename = () => new Promise<void>(() => undefined);
    void dying.start({ entityId: 'ent_cut', entityType: 'ticket' });
    await waitUntil(() => [...engine.containers.values()].some((c) => c.running));
    const [fake] = [...engine.containers.values()];
    const row = await databaseOf(store).selectFrom('containers').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ container_id: fake!.Name, entity_id: 'ent_cut', status: 'starting' });
    await manager().recover();
    expect(await databaseOf(store).selectFrom('containers').select(['container_id', 'status', 'pid']).execute()).toEqual([
      { container_id: fake!.Id, status: 'running', pid: fake!.pid },
    ]);
  });

  it('removes a container whose record a reset took while it started, so none runs unrecorded', async () => {
    const m = manager();
    const records = (m as unknown as { records: { rename: (...args: unknown[]) => Promise<void>; remove: (id: string) => Promise<void> } }).records;
    const rename = records.rename.bind(records);
    // A reset on another server stops the `starting` container by name and removes its record first.
    records.rename = async (name, ...rest) => {
      await records.remove(name as string);
      return rename(name, ...rest);
    };
    await expect(m.start({ entityId: 'ent_raced', entityType: 'ticket' })).rejects.toThrow(/removed as it started: a reset took its record/);
    expect([...engine.containers.values()].map((c) => c.removed)).toEqual([true]);
    expect(await databaseOf(store).selectFrom('containers').selectAll().execute()).toEqual([]);
  });

  it('refuses to start beyond its container limit, as the local manager does', async () => {
    const m = new DockerEngineManager({ store, clock: systemClock, socketPath: engine.socketPath, image: 'busybox:1.36', maxContainers: 1 });
    await m.start({ entityId: 'a', entityType: 't' });
    await expect(m.start({ entityId: 'b', entityType: 't' })).rejects.toThrow(/container limit reached \(1 live containers\)/);
    expect(engine.containers.size).toBe(1);
  });

  it('reports an unreachable engine as a stop failure, not an exception', async () => {
    const m = manager();
    const record = await m.start({ entityId: 'ent_u', entityType: 'ticket' });
    await engine.close();
    const outcome = await m.stop(record.container_id);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatch(/unreachable/);
    engine = await startFakeDockerEngine(path.join(dir, 'docker.sock'));
  });
});
