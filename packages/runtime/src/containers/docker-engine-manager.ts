/**
 * Container manager over the Docker Engine HTTP API on its Unix socket (no Docker CLI, no client
 * library): create, start, stop, inspect and remove. Containers outlive the runtime process, so
 * the records in `containers` are what a later reset reads to find them.
 *
 * What a real engine asks for (Debian's docker.io 20.10, tested in apps/server/test/docker-engine*):
 * images are never pulled (create answers 404 for an image the engine does not hold, and a
 * machine may reach no registry), so the image must be pulled or imported beforehand; a container
 * has no network (`NetworkMode: none`, as `docker run --network none`); and every container runs
 * a command of ours, since an imported image has none (create answers "No command specified") and
 * a stock image's default shell exits at once without a terminal.
 */
import http from 'node:http';
import type { Clock, Store } from '@switchboard/store';
import {
  ContainerStartError,
  type ContainerInspection,
  type ContainerManager,
  type ContainerRecord,
  type ContainerSpec,
  type StopOutcome,
} from './container-manager';
import { ContainerRecords } from './container-records';

/**
 * The command of each container when none is configured: idles until stopped, and exits at once
 * on the SIGTERM of a stop (a shell as a container's PID 1 ignores SIGTERM unless it traps it,
 * which would make every stop wait out its timeout before the engine kills it).
 */
export const DEFAULT_DOCKER_CONTAINER_COMMAND = ['/bin/sh', '-c', `trap 'exit 0' TERM INT; sleep 2147483647 & wait`];

/**
 * The Engine API version asked for when the engine's own cannot be read. Otherwise the engine's
 * own version is used: an engine refuses versions below its minimum (raised by later releases)
 * and Debian's 20.10 knows none above 1.41; the few calls made here mean the same in all of them.
 */
const FALLBACK_API_VERSION = 'v1.41';

export interface DockerEngineManagerOptions {
  store: Store;
  clock: Clock;
  socketPath: string;
  image: string;
  /** Command of each entity container; DEFAULT_DOCKER_CONTAINER_COMMAND when omitted. */
  command?: string[];
  /** Seconds Docker waits after SIGTERM before it kills the container (the `t` of a stop). */
  stopTimeoutSeconds?: number;
  /** Engine API version prefix, e.g. "v1.41"; asked of the engine (GET /version) when omitted. */
  apiVersion?: string;
  /** Upper bound on live containers (recorded and not exited or failed), as for local processes. */
  maxContainers?: number;
  /** Bound on one Engine API call apart from stop (which adds stopTimeoutSeconds). */
  requestTimeoutMs?: number;
}

export interface EngineResponse {
  status: number;
  body: any;
}

export class DockerEngineError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DockerEngineError';
  }
}

export class DockerEngineManager implements ContainerManager {
  readonly implementation = 'docker' as const;
  private readonly records: ContainerRecords;
  private apiVersion: Promise<string> | undefined;
  private readonly stopTimeoutSeconds: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: DockerEngineManagerOptions) {
    this.records = new ContainerRecords(options.store, options.clock);
    this.apiVersion = options.apiVersion === undefined ? undefined : Promise.resolve(options.apiVersion);
    this.stopTimeoutSeconds = options.stopTimeoutSeconds ?? 10;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /**
   * The record comes first, under the container's name (the engine takes a name wherever it
   * takes an id), as `starting`; once the engine has started the container, the record is given
   * the engine's id. A runtime killed in between leaves a record that names the container: the
   * next boot pass (reconcile) adopts it, or drops the record when no container was created, and
   * a reset stops it by name. Without it, such a container ran on unrecorded, no reset found it,
   * and the entity got a second one.
   */
  async start(spec: ContainerSpec): Promise<ContainerRecord> {
    const max = this.options.maxContainers ?? 128;
    const live = (await this.listStoppable()).filter((r) => r.status !== 'exited' && r.status !== 'failed').length;
    if (live >= max) throw new ContainerStartError(`container limit reached (${max} live containers)`, spec.entityId);
    const name = containerName(spec.entityId);
    await this.records.insert({ containerId: name, entityId: spec.entityId, implementation: 'docker', status: 'starting', pid: null });
    try {
      const id = await this.createAndStart(name, spec);
      const inspection = await this.inspect(id).catch(() => undefined);
      await this.records.rename(name, id, { status: 'running', pid: inspection?.pid ?? null });
      const record = await this.records.get(id);
      if (!record) {
        // A reset (on another server) stopped it by name and removed its record meanwhile: a
        // container left running now would be one that no record names.
        await this.request('DELETE', `/containers/${id}?force=true`).catch(() => undefined);
        throw new ContainerStartError(`container ${id} was removed as it started: a reset took its record`, spec.entityId);
      }
      return record;
    } catch (err) {
      await this.records.remove(name).catch(() => undefined);
      throw err;
    }
  }

  private async createAndStart(name: string, spec: ContainerSpec): Promise<string> {
    let created: EngineResponse;
    try {
      created = await this.request('POST', `/containers/create?name=${encodeURIComponent(name)}`, {
        Image: this.options.image,
        Cmd: this.options.command ?? DEFAULT_DOCKER_CONTAINER_COMMAND,
        Env: [`SWITCHBOARD_ENTITY_ID=${spec.entityId}`, `SWITCHBOARD_ENTITY_TYPE=${spec.entityType}`],
        Labels: { 'switchboard.entity_id': spec.entityId, 'switchboard.entity_type': spec.entityType, 'switchboard.managed': 'true' },
        HostConfig: { NetworkMode: 'none' },
      });
    } catch (err) {
      throw new ContainerStartError(`docker create failed: ${(err as Error).message}`, spec.entityId);
    }
    if (created.status === 404) {
      throw new ContainerStartError(
        `docker create failed: ${engineMessage(created)} (images are never pulled: pull or import ${this.options.image} into the engine, or set SWITCHBOARD_DOCKER_IMAGE)`,
        spec.entityId,
      );
    }
    if (created.status !== 201 || typeof created.body?.Id !== 'string') {
      throw new ContainerStartError(`docker create failed: ${engineMessage(created)}`, spec.entityId);
    }
    const id: string = created.body.Id;
    let started: EngineResponse;
    try {
      started = await this.request('POST', `/containers/${id}/start`);
    } catch (err) {
      started = { status: 0, body: { message: (err as Error).message } };
    }
    if (started.status !== 204 && started.status !== 304) {
      await this.request('DELETE', `/containers/${id}?force=true`).catch(() => undefined);
      throw new ContainerStartError(`docker start of ${id} failed: ${engineMessage(started)}`, spec.entityId);
    }
    return id;
  }

  async stop(containerId: string): Promise<StopOutcome> {
    const record = await this.records.get(containerId);
    const entityId = record?.entity_id ?? '';
    let res: EngineResponse;
    try {
      await this.records.update(containerId, { status: 'stopping' });
      res = await this.request('POST', `/containers/${containerId}/stop?t=${this.stopTimeoutSeconds}`, undefined, this.stopTimeoutSeconds * 1000 + this.requestTimeoutMs);
    } catch (err) {
      return this.stopFailed(containerId, entityId, `docker stop of ${containerId} failed: ${(err as Error).message}`);
    }
    if (res.status === 404) {
      await this.records.remove(containerId);
      return { ok: true, containerId, entityId, alreadyStopped: true };
    }
    if (res.status !== 204 && res.status !== 304) {
      return this.stopFailed(containerId, entityId, `docker stop of ${containerId} failed: ${engineMessage(res)}`);
    }
    // Removing the stopped container is housekeeping: the stop itself succeeded either way.
    await this.request('DELETE', `/containers/${containerId}`).catch(() => undefined);
    await this.records.remove(containerId);
    return { ok: true, containerId, entityId, alreadyStopped: res.status === 304 };
  }

  async inspect(containerId: string): Promise<ContainerInspection> {
    const { engineId: _, ...inspection } = await this.inspectEngine(containerId);
    return inspection;
  }

  /** Inspect, with the engine's id of the container (`containerId` may be its name). */
  private async inspectEngine(containerId: string): Promise<ContainerInspection & { engineId: string | null }> {
    const res = await this.request('GET', `/containers/${encodeURIComponent(containerId)}/json`);
    if (res.status === 404) return { containerId, running: false, status: 'missing', pid: null, engineId: null };
    if (res.status !== 200) throw new DockerEngineError(`docker inspect of ${containerId} failed: ${engineMessage(res)}`, res.status);
    const state = res.body?.State ?? {};
    return {
      containerId,
      running: state.Running === true,
      status: typeof state.Status === 'string' ? state.Status : 'unknown',
      pid: typeof state.Pid === 'number' && state.Pid > 0 ? state.Pid : null,
      engineId: typeof res.body?.Id === 'string' ? res.body.Id : null,
    };
  }

  listStoppable(): Promise<ContainerRecord[]> {
    return this.records.listStoppable('docker');
  }

  /** Refreshes each record from the engine after a runtime restart (containers live on without us). */
  async recover(): Promise<void> {
    await this.reconcile();
  }

  async reconcile(): Promise<void> {
    for (const record of await this.listStoppable()) {
      try {
        const state = await this.inspectEngine(record.container_id);
        if (state.status === 'missing') await this.records.remove(record.container_id);
        else if (record.status === 'starting' && state.engineId && state.engineId !== record.container_id)
          // Created under this name by a runtime that died before it recorded the engine's id.
          await this.records.rename(record.container_id, state.engineId, { status: state.running ? 'running' : 'exited', pid: state.pid });
        else if (record.status !== 'stop_failed')
          await this.records.update(record.container_id, { status: state.running ? 'running' : 'exited', pid: state.pid });
      } catch {
        // Engine unreachable: leave the record; a reset reports the failure when it tries to stop it.
      }
    }
  }

  async close(): Promise<void> {}

  private async stopFailed(containerId: string, entityId: string, error: string): Promise<StopOutcome> {
    await this.records.update(containerId, { status: 'stop_failed', last_error: error }).catch(() => undefined);
    return { ok: false, containerId, entityId, error };
  }

  /** One Engine API call over the Unix socket. Rejects only on transport failures. */
  async request(method: string, path: string, body?: unknown, timeoutMs = this.requestTimeoutMs): Promise<EngineResponse> {
    return this.send(method, `/${await this.negotiatedVersion()}${path}`, body, timeoutMs);
  }

  /**
   * The engine's API version (GET /version, which takes no version prefix), asked once; an
   * engine that does not say gets FALLBACK_API_VERSION. Not kept after a transport failure, so
   * an engine that was down at the first call is asked again.
   */
  private negotiatedVersion(): Promise<string> {
    this.apiVersion ??= this.send('GET', '/version').then(
      (res) => {
        const version: unknown = res.body?.ApiVersion;
        return res.status === 200 && typeof version === 'string' && /^\d+\.\d+$/.test(version) ? `v${version}` : FALLBACK_API_VERSION;
      },
      (err: unknown) => {
        this.apiVersion = undefined;
        throw err;
      },
    );
    return this.apiVersion;
  }

  private send(method: string, path: string, body?: unknown, timeoutMs = this.requestTimeoutMs): Promise<EngineResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          socketPath: this.options.socketPath,
          method,
          path,
          headers: {
            host: 'docker',
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            if (text.length > 0) {
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = { message: text.slice(0, 500) };
              }
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new DockerEngineError(`no answer from the Docker engine within ${timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) =>
        reject(err instanceof DockerEngineError ? err : new DockerEngineError(`Docker engine at ${this.options.socketPath} unreachable: ${err.code ?? err.message}`)),
      );
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
}

/** Docker names allow [a-zA-Z0-9][a-zA-Z0-9_.-]; entity ids may hold anything. */
function containerName(entityId: string): string {
  return `switchboard-${entityId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 100)}-${Date.now().toString(36)}`;
}

function engineMessage(res: EngineResponse): string {
  const message = typeof res.body?.message === 'string' ? res.body.message : undefined;
  return `HTTP ${res.status}${message ? `: ${message}` : ''}`;
}
