/**
 * Container manager over the Docker Engine HTTP API on its Unix socket (no Docker CLI, no client
 * library): create, start, stop, inspect and remove. Containers outlive the runtime process, so
 * the records in `containers` are what a later reset reads to find them.
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

export interface DockerEngineManagerOptions {
  store: Store;
  clock: Clock;
  socketPath: string;
  image: string;
  /** Command of each entity container; the image's default when omitted. */
  command?: string[];
  /** Seconds Docker waits after SIGTERM before it kills the container (the `t` of a stop). */
  stopTimeoutSeconds?: number;
  /** Engine API version prefix, e.g. "v1.41" (Docker 20.10 and later). */
  apiVersion?: string;
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
  private readonly apiVersion: string;
  private readonly stopTimeoutSeconds: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: DockerEngineManagerOptions) {
    this.records = new ContainerRecords(options.store, options.clock);
    this.apiVersion = options.apiVersion ?? 'v1.41';
    this.stopTimeoutSeconds = options.stopTimeoutSeconds ?? 10;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  async start(spec: ContainerSpec): Promise<ContainerRecord> {
    let created: EngineResponse;
    try {
      created = await this.request('POST', `/containers/create?name=${encodeURIComponent(containerName(spec.entityId))}`, {
        Image: this.options.image,
        ...(this.options.command ? { Cmd: this.options.command } : {}),
        Env: [`SWITCHBOARD_ENTITY_ID=${spec.entityId}`, `SWITCHBOARD_ENTITY_TYPE=${spec.entityType}`],
        Labels: { 'switchboard.entity_id': spec.entityId, 'switchboard.entity_type': spec.entityType, 'switchboard.managed': 'true' },
      });
    } catch (err) {
      throw new ContainerStartError(`docker create failed: ${(err as Error).message}`, spec.entityId);
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
    const inspection = await this.inspect(id).catch(() => undefined);
    return this.records.insert({ containerId: id, entityId: spec.entityId, implementation: 'docker', status: 'running', pid: inspection?.pid ?? null });
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
    const res = await this.request('GET', `/containers/${containerId}/json`);
    if (res.status === 404) return { containerId, running: false, status: 'missing', pid: null };
    if (res.status !== 200) throw new DockerEngineError(`docker inspect of ${containerId} failed: ${engineMessage(res)}`, res.status);
    const state = res.body?.State ?? {};
    return {
      containerId,
      running: state.Running === true,
      status: typeof state.Status === 'string' ? state.Status : 'unknown',
      pid: typeof state.Pid === 'number' && state.Pid > 0 ? state.Pid : null,
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
        const state = await this.inspect(record.container_id);
        if (state.status === 'missing') await this.records.remove(record.container_id);
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
  request(method: string, path: string, body?: unknown, timeoutMs = this.requestTimeoutMs): Promise<EngineResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          socketPath: this.options.socketPath,
          method,
          path: `/${this.apiVersion}${path}`,
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
