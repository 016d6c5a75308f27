/**
 * A stand-in for the Docker Engine API on a Unix socket: the subset the Docker container manager
 * calls, with the engine's status codes and error bodies, for what a real engine cannot be made to
 * answer on demand (the real engine's tests are apps/server/test/docker-engine*). Containers
 * labelled with an entity id in `refuseStopFor` answer a stop with HTTP 500, as the engine does
 * when it cannot stop a container.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

export interface FakeContainer {
  Id: string;
  Name: string;
  Image: string;
  Labels: Record<string, string>;
  Env: string[];
  Cmd: string[] | undefined;
  HostConfig: Record<string, unknown>;
  running: boolean;
  pid: number;
  removed: boolean;
}

export interface FakeDockerEngine {
  socketPath: string;
  containers: Map<string, FakeContainer>;
  calls: { method: string; path: string }[];
  refuseStopFor: Set<string>;
  knownImages: Set<string>;
  close(): Promise<void>;
}

export async function startFakeDockerEngine(socketPath: string, options: { images?: string[] } = {}): Promise<FakeDockerEngine> {
  fs.rmSync(socketPath, { force: true });
  const containers = new Map<string, FakeContainer>();
  const calls: { method: string; path: string }[] = [];
  const refuseStopFor = new Set<string>();
  const knownImages = new Set(options.images ?? ['busybox:1.36']);
  let nextPid = 4000;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://docker');
      calls.push({ method: req.method ?? '', path: url.pathname + url.search });
      const send = (status: number, body?: unknown) => {
        if (body === undefined) {
          res.writeHead(status).end();
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (url.pathname === '/version' && req.method === 'GET') return send(200, { ApiVersion: '1.41', MinAPIVersion: '1.12', Version: 'fake' });
      const match = /^\/v1\.\d+\/containers\/(?:(create)|([\w.-]+)\/(start|stop|json)|([\w.-]+))$/.exec(url.pathname);
      if (!match) return send(404, { message: `page not found: ${url.pathname}` });
      const [, create, actionId, action, deleteId] = match;
      if (create && req.method === 'POST') {
        let body: any;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return send(400, { message: 'invalid JSON body' });
        }
        const name = url.searchParams.get('name');
        if (name && [...containers.values()].some((c) => c.Name === name && !c.removed)) return send(409, { message: `Conflict. The container name "/${name}" is already in use` });
        if (!knownImages.has(body.Image)) return send(404, { message: `No such image: ${body.Image}` });
        // An imported image has no command of its own, as the real engine then says.
        if (!Array.isArray(body.Cmd) || body.Cmd.length === 0) return send(400, { message: 'No command specified' });
        const Id = randomBytes(32).toString('hex');
        containers.set(Id, {
          Id,
          Name: url.searchParams.get('name') ?? Id.slice(0, 12),
          Image: body.Image,
          Labels: body.Labels ?? {},
          Env: body.Env ?? [],
          Cmd: body.Cmd,
          HostConfig: body.HostConfig ?? {},
          running: false,
          pid: 0,
          removed: false,
        });
        return send(201, { Id, Warnings: [] });
      }
      const id = actionId ?? deleteId!;
      // As the engine does, a container is named by its id or its name.
      const container = containers.get(id) ?? [...containers.values()].find((c) => c.Name === id && !c.removed);
      if (!container || container.removed) return send(404, { message: `No such container: ${id}` });
      if (deleteId && req.method === 'DELETE') {
        if (container.running && url.searchParams.get('force') !== 'true') {
          return send(409, { message: `You cannot remove a running container ${id}. Stop the container before attempting removal or force remove` });
        }
        container.removed = true;
        return send(204);
      }
      if (action === 'start' && req.method === 'POST') {
        if (container.running) return send(304);
        container.running = true;
        container.pid = nextPid++;
        return send(204);
      }
      if (action === 'stop' && req.method === 'POST') {
        if (refuseStopFor.has(container.Labels['switchboard.entity_id'] ?? '')) {
          return send(500, { message: `cannot stop container: ${id}: tried to kill container, but did not receive an exit event` });
        }
        if (!container.running) return send(304);
        container.running = false;
        container.pid = 0;
        return send(204);
      }
      if (action === 'json' && req.method === 'GET') {
        return send(200, {
          Id: container.Id,
          Name: `/${container.Name}`,
          Config: { Image: container.Image, Labels: container.Labels, Env: container.Env },
          State: { Status: container.running ? 'running' : 'exited', Running: container.running, Pid: container.pid, ExitCode: 0 },
        });
      }
      return send(405, { message: 'method not allowed' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    containers,
    calls,
    refuseStopFor,
    knownImages,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
