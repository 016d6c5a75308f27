/**
 * The real Docker engine for the managed-container tests (scripts/test-docker.mjs finds it and
 * imports the busybox image when missing; it never starts dockerd from a test). Without an engine
 * the tests are skipped with a line saying why, except under CI=true, where that is a failure.
 * Each test file tags its entity ids, so it counts and removes only containers of its own (other
 * files, and other checkouts, may run containers on the same engine at the same time).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, vi } from 'vitest';
import { engineRequest, findTestDocker } from '../../../scripts/test-docker.mjs';

export interface EngineContainer {
  Id: string;
  Image: string;
  State: string;
  Labels: Record<string, string>;
  HostConfig: { NetworkMode: string };
}

/**
 * A Unix socket in front of the engine that passes every connection through, until it is cut:
 * then it closes its open connections and the socket itself, so that the engine is unreachable
 * through it (as when dockerd is down) while it keeps running the containers.
 */
export interface EngineProxy {
  socket: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function engineProxy(engineSocket: string, socket: string): Promise<EngineProxy> {
  const open = new Set<net.Socket>();
  let server: net.Server | undefined;
  const listen = async () => {
    fs.rmSync(socket, { force: true });
    const s = net.createServer((client) => {
      const upstream = net.connect(engineSocket);
      open.add(client).add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => s.once('error', reject).listen(socket, () => resolve()));
    server = s;
  };
  const cut = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    for (const c of open) c.destroy();
    await closed;
  };
  await listen();
  return { socket, cut, restore: listen, close: cut };
}

export interface RealDocker {
  socket: string;
  image: string;
  /** Prefix of this file's entity ids (order ids are `<tag>-…`, so entity ids are `order-<tag>-…`). */
  tag: string;
  /** Environment of a server that manages containers on this engine. */
  env(socket?: string): Record<string, string>;
  /** This file's managed containers the engine holds (running or not). */
  containers(): Promise<EngineContainer[]>;
  running(): Promise<EngineContainer[]>;
  /** Waits until exactly these entities have running containers, and returns them. */
  waitForRunning(entityIds: string[], timeoutMs?: number): Promise<EngineContainer[]>;
  /** The engine's view of one container: its State, or undefined once it is removed. */
  inspect(id: string): Promise<{ Running: boolean; Status: string; Pid: number } | undefined>;
}

/** The engine, or undefined (and a printed reason) when the tests must be skipped. */
export async function realDocker(label: string): Promise<RealDocker | undefined> {
  const found = await findTestDocker();
  if (!found.socket) {
    const message = `${label}: ${found.reason}`;
    if (process.env.CI === 'true') throw new Error(`Docker engine tests cannot run under CI=true: ${message}`);
    console.warn(
      `Docker engine tests skipped (${message}). To run them: apt-get install -y docker.io busybox-static, then as root ` +
        `node scripts/test-docker.mjs (starts dockerd --storage-driver=vfs --iptables=false --bridge=none and imports the image).`,
    );
    return undefined;
  }
  const { socket, image } = found;
  const tag = `dkr${randomBytes(4).toString('hex')}`;
  const entityPrefix = `order-${tag}-`;
  const containers = async (): Promise<EngineContainer[]> => {
    const filters = encodeURIComponent(JSON.stringify({ label: ['switchboard.managed=true'] }));
    const res = await engineRequest(socket, 'GET', `/containers/json?all=true&filters=${filters}`);
    if (res.status !== 200) throw new Error(`listing containers failed: HTTP ${res.status} ${res.text}`);
    return (res.body as EngineContainer[]).filter((c) => c.Labels['switchboard.entity_id']?.startsWith(entityPrefix));
  };
  const running = async () => (await containers()).filter((c) => c.State === 'running');
  // Whatever a test left behind (a failed assertion, a killed server) is removed with the file.
  afterAll(async () => {
    for (const c of await containers().catch(() => [])) await engineRequest(socket, 'DELETE', `/containers/${c.Id}?force=true`).catch(() => undefined);
  });
  return {
    socket,
    image,
    tag,
    env: (s = socket) => ({ SWITCHBOARD_CONTAINERS: 'docker', SWITCHBOARD_DOCKER_SOCKET: s, SWITCHBOARD_DOCKER_IMAGE: image }),
    containers,
    running,
    async waitForRunning(entityIds, timeoutMs = 20_000) {
      const want = [...entityIds].sort();
      let last: EngineContainer[] = [];
      await vi.waitFor(
        async () => {
          last = await running();
          const have = last.map((c) => c.Labels['switchboard.entity_id']).sort();
          if (JSON.stringify(have) !== JSON.stringify(want)) throw new Error(`running containers for ${want.join(', ')}; running now: ${have.join(', ') || 'none'}`);
        },
        { timeout: timeoutMs, interval: 20 },
      );
      return last;
    },
    async inspect(id) {
      const res = await engineRequest(socket, 'GET', `/containers/${id}/json`);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw new Error(`inspect ${id} failed: HTTP ${res.status} ${res.text}`);
      return res.body.State;
    },
  };
}
