/**
 * The default container manager: each managed entity gets a child process that the runtime starts
 * and supervises (restarted with backoff when it exits on its own, up to a limit). Stopping sends
 * SIGTERM and waits a bounded time; a process still alive after that is a stop failure that the
 * caller reports with the container id. It is not killed behind the operator's back: an entity
 * workload that ignores SIGTERM is a real problem to surface, not to hide.
 *
 * The child's stdin is a pipe that the runtime never writes to: the default command exits when it
 * closes, so containers do not outlive a runtime that was killed without a chance to stop them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Clock, Store } from '@switchboard/store';
import { newId } from '../ids';
import {
  ContainerStartError,
  type ContainerEventListener,
  type ContainerInspection,
  type ContainerManager,
  type ContainerRecord,
  type ContainerSpec,
  type StopOutcome,
} from './container-manager';
import { ContainerRecords } from './container-records';

/** Exits on SIGTERM or when the runtime's end of stdin closes. */
export const DEFAULT_LOCAL_CONTAINER_COMMAND = `trap 'exit 0' TERM INT; read _ || true; exit 0`;

export interface LocalProcessManagerOptions {
  store: Store;
  clock: Clock;
  /** Shell command (run with /bin/sh -c) of each entity container. */
  command?: string;
  /** How long a stop waits for the process to exit after SIGTERM. */
  stopTimeoutMs?: number;
  /** Restarts of a process that exits on its own before it is marked failed. */
  restartLimit?: number;
  restartBackoffMs?: number;
  /** Upper bound on live containers, so a burst of entities cannot fork the host to death. */
  maxContainers?: number;
  /** Told about supervision events (exits, restarts, failures) for the runtime log. */
  onEvent?: ContainerEventListener;
}

interface Supervised {
  containerId: string;
  entityId: string;
  entityType: string;
  child: ChildProcess;
  exited: Promise<void>;
  stopping: boolean;
  restarts: number;
  restartTimer?: NodeJS.Timeout;
}

export class LocalProcessManager implements ContainerManager {
  readonly implementation = 'local' as const;
  private readonly records: ContainerRecords;
  private readonly live = new Map<string, Supervised>();
  private readonly pendingWrites = new Set<Promise<unknown>>();
  /** Per container, the end of its last record write (see inOrder). */
  private readonly lastWrites = new Map<string, Promise<void>>();
  private readonly command: string;
  private readonly stopTimeoutMs: number;
  private readonly restartLimit: number;
  private readonly restartBackoffMs: number;
  private readonly maxContainers: number;
  private closed = false;
  private listener: ContainerEventListener | undefined;

  constructor(private readonly options: LocalProcessManagerOptions) {
    this.records = new ContainerRecords(options.store, options.clock);
    this.command = options.command ?? DEFAULT_LOCAL_CONTAINER_COMMAND;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 5_000;
    this.restartLimit = options.restartLimit ?? 3;
    this.restartBackoffMs = options.restartBackoffMs ?? 250;
    this.maxContainers = options.maxContainers ?? 128;
    this.listener = options.onEvent;
  }

  setEventListener(listener: ContainerEventListener): void {
    this.listener = listener;
  }

  get liveCount(): number {
    return this.live.size;
  }

  async start(spec: ContainerSpec): Promise<ContainerRecord> {
    if (this.closed) throw new ContainerStartError('container manager is closed', spec.entityId);
    if (this.live.size >= this.maxContainers) {
      throw new ContainerStartError(`container limit reached (${this.maxContainers} live containers)`, spec.entityId);
    }
    const containerId = newId('ctr', this.options.clock.now());
    const child = await this.spawnChild(containerId, spec);
    const record = await this.records.insert({
      containerId,
      entityId: spec.entityId,
      implementation: 'local',
      status: 'running',
      pid: child.pid ?? null,
    });
    this.supervise({ containerId, entityId: spec.entityId, entityType: spec.entityType, child, exited: exitOf(child), stopping: false, restarts: 0 });
    return record;
  }

  /**
   * Processes recorded as alive by an earlier runtime process are gone with it (their stdin closed):
   * start them again under the same container id so each managed entity keeps its container.
   */
  async recoverAfterRestart(entityTypes: Map<string, string>): Promise<{ restarted: string[]; failed: { containerId: string; error: string }[] }> {
    const restarted: string[] = [];
    const failed: { containerId: string; error: string }[] = [];
    for (const record of await this.records.listStoppable('local')) {
      if (this.live.has(record.container_id)) continue;
      if (record.status === 'stop_failed' || record.status === 'failed') continue;
      const entityType = entityTypes.get(record.entity_id);
      if (!entityType || this.live.size >= this.maxContainers) {
        await this.updateRecord(record.container_id, { status: 'exited', pid: null, last_error: 'lost when the runtime restarted' });
        continue;
      }
      try {
        const spec = { entityId: record.entity_id, entityType };
        const child = await this.spawnChild(record.container_id, spec);
        await this.updateRecord(record.container_id, { status: 'running', pid: child.pid ?? null, last_error: null });
        this.supervise({ containerId: record.container_id, entityId: record.entity_id, entityType, child, exited: exitOf(child), stopping: false, restarts: 0 });
        restarted.push(record.container_id);
      } catch (err) {
        const error = (err as Error).message;
        await this.updateRecord(record.container_id, { status: 'failed', pid: null, last_error: error });
        failed.push({ containerId: record.container_id, error });
      }
    }
    return { restarted, failed };
  }

  async recover(entityTypes: Map<string, string>): Promise<void> {
    await this.recoverAfterRestart(entityTypes);
  }

  async stop(containerId: string): Promise<StopOutcome> {
    const entry = this.live.get(containerId);
    const record = await this.records.get(containerId);
    if (!entry) {
      if (!record) return { ok: false, containerId, entityId: '', error: `container ${containerId} is not known` };
      // No process of ours: it exited, failed for good, or belonged to an earlier runtime process.
      await this.removeRecord(containerId);
      return { ok: true, containerId, entityId: record.entity_id, alreadyStopped: true };
    }
    entry.stopping = true;
    if (entry.restartTimer) {
      clearTimeout(entry.restartTimer);
      entry.restartTimer = undefined;
    }
    if (!isAlive(entry.child)) {
      this.live.delete(containerId);
      await this.removeRecord(containerId);
      return { ok: true, containerId, entityId: entry.entityId, alreadyStopped: true };
    }
    await this.updateRecord(containerId, { status: 'stopping' });
    entry.child.kill('SIGTERM');
    const exitedInTime = await settlesWithin(entry.exited, this.stopTimeoutMs);
    if (exitedInTime) {
      this.live.delete(containerId);
      await this.removeRecord(containerId);
      return { ok: true, containerId, entityId: entry.entityId, alreadyStopped: false };
    }
    const error = `container ${containerId} (pid ${entry.child.pid}) did not exit within ${this.stopTimeoutMs} ms of SIGTERM`;
    await this.updateRecord(containerId, { status: 'stop_failed', last_error: error });
    return { ok: false, containerId, entityId: entry.entityId, error };
  }

  async inspect(containerId: string): Promise<ContainerInspection> {
    const entry = this.live.get(containerId);
    if (entry && isAlive(entry.child)) return { containerId, running: true, status: 'running', pid: entry.child.pid ?? null };
    const record = await this.records.get(containerId);
    return { containerId, running: false, status: record?.status ?? 'unknown', pid: null };
  }

  listStoppable(): Promise<ContainerRecord[]> {
    return this.records.listStoppable('local');
  }

  /** Kills every child (SIGKILL after closing stdin) and records them as exited. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const entries = [...this.live.values()];
    for (const entry of entries) {
      if (entry.restartTimer) clearTimeout(entry.restartTimer);
      entry.stopping = true;
      entry.child.stdin?.end();
      if (isAlive(entry.child)) entry.child.kill('SIGKILL');
    }
    await Promise.all(entries.map((e) => settlesWithin(e.exited, 2_000)));
    await Promise.allSettled([...this.pendingWrites]);
    for (const entry of entries) {
      await this.updateRecord(entry.containerId, { status: 'exited', pid: null, last_error: 'runtime stopped' }).catch(() => undefined);
    }
    this.live.clear();
  }

  private async spawnChild(containerId: string, spec: ContainerSpec): Promise<ChildProcess> {
    const child = spawn('/bin/sh', ['-c', this.command], {
      stdio: ['pipe', 'ignore', 'ignore'],
      // Only what the workload needs: never the runtime's own secrets (tokens, API keys).
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SWITCHBOARD_CONTAINER_ID: containerId,
        SWITCHBOARD_ENTITY_ID: spec.entityId,
        SWITCHBOARD_ENTITY_TYPE: spec.entityType,
      },
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => reject(new ContainerStartError(`cannot start container process: ${err.message}`, spec.entityId)));
    });
    // A write to a closed pipe must not crash the runtime.
    child.stdin?.on('error', () => undefined);
    return child;
  }

  private supervise(entry: Supervised): void {
    this.live.set(entry.containerId, entry);
    entry.exited.then(() => {
      if (this.closed) return;
      if (this.live.get(entry.containerId) !== entry) return;
      const how = entry.child.signalCode ? `signal ${entry.child.signalCode}` : `code ${entry.child.exitCode}`;
      if (entry.stopping) {
        // Exited after a stop that had already been reported as failed: it is stopped now.
        this.live.delete(entry.containerId);
        this.track(this.removeRecord(entry.containerId));
        return;
      }
      if (entry.restarts >= this.restartLimit) {
        this.live.delete(entry.containerId);
        const message = `container process exited (${how}) and reached its restart limit of ${this.restartLimit}`;
        this.track(this.updateRecord(entry.containerId, { status: 'failed', pid: null, last_error: message }));
        this.listener?.({ level: 'error', containerId: entry.containerId, entityId: entry.entityId, message, errorCode: 'CONTAINER_FAILED' });
        return;
      }
      const wait = this.restartBackoffMs * 2 ** entry.restarts;
      const message = `container process exited (${how}); restarting in ${wait} ms`;
      this.track(this.updateRecord(entry.containerId, { status: 'restarting', pid: null, last_error: message }));
      this.listener?.({ level: 'warn', containerId: entry.containerId, entityId: entry.entityId, message, errorCode: 'CONTAINER_EXITED' });
      entry.restartTimer = setTimeout(() => {
        entry.restartTimer = undefined;
        if (this.closed || entry.stopping) return;
        this.track(this.restart(entry));
      }, wait);
      entry.restartTimer.unref();
    });
  }

  private async restart(previous: Supervised): Promise<void> {
    try {
      const child = await this.spawnChild(previous.containerId, { entityId: previous.entityId, entityType: previous.entityType });
      if (this.closed || previous.stopping) {
        child.stdin?.end();
        child.kill('SIGKILL');
        return;
      }
      await this.updateRecord(previous.containerId, { status: 'running', pid: child.pid ?? null });
      this.supervise({ ...previous, child, exited: exitOf(child), restarts: previous.restarts + 1, restartTimer: undefined });
    } catch (err) {
      this.live.delete(previous.containerId);
      await this.updateRecord(previous.containerId, { status: 'failed', pid: null, last_error: (err as Error).message });
    }
  }

  /** Updates a container's record after the writes issued for it before (see inOrder). */
  private updateRecord(containerId: string, patch: Parameters<ContainerRecords['update']>[1]): Promise<void> {
    return this.inOrder(containerId, () => this.records.update(containerId, patch));
  }

  /** Removes a container's record after the writes issued for it before (see inOrder). */
  private removeRecord(containerId: string): Promise<void> {
    return this.inOrder(containerId, () => this.records.remove(containerId));
  }

  /**
   * Runs a container's record write after the ones issued for it before: every write once the
   * record exists goes through updateRecord or removeRecord. The supervisor does not wait for its
   * writes, and on PostgreSQL two in flight run on two connections: a "restarting" issued before a
   * quick restart's "running" and "failed" could commit last and leave the record saying
   * restarting for good.
   */
  private inOrder(containerId: string, write: () => Promise<void>): Promise<void> {
    const next = (this.lastWrites.get(containerId) ?? Promise.resolve()).then(write, write);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.lastWrites.set(containerId, settled);
    void settled.then(() => {
      if (this.lastWrites.get(containerId) === settled) this.lastWrites.delete(containerId);
    });
    return next;
  }

  private track(write: Promise<unknown>): void {
    const guarded = write.catch(() => undefined);
    this.pendingWrites.add(guarded);
    void guarded.finally(() => this.pendingWrites.delete(guarded));
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (!isAlive(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** True when the promise settles within ms; the timer is cleared either way. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
