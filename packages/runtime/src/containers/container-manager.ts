/**
 * Managed entity containers: entities whose type says `managed_container: true` each get one
 * container, started when the entity is created and stopped by a runtime reset. Two
 * implementations sit behind this interface: local child processes (the default) and the Docker
 * Engine API over its Unix socket.
 */
import type { ContainersTable } from '@switchboard/store';

export type ContainerImplementation = 'local' | 'docker';

/**
 * Lifecycle of a container record. `stop_failed` is kept (with `last_error`) so that a later reset
 * retries the stop; a stopped container's record is removed by the stop itself.
 */
export type ContainerStatus = 'starting' | 'running' | 'restarting' | 'exited' | 'failed' | 'stopping' | 'stop_failed' | 'stopped';

/** Statuses whose container may still be alive and therefore must be stopped by a reset. */
export const STOPPABLE_STATUSES: readonly ContainerStatus[] = ['starting', 'running', 'restarting', 'stopping', 'stop_failed', 'exited', 'failed'];

export type ContainerRecord = ContainersTable;

/** A container could not be started; the entity lives on without one and the failure is logged. */
export class ContainerStartError extends Error {
  constructor(
    message: string,
    readonly entityId: string,
  ) {
    super(message);
    this.name = 'ContainerStartError';
  }
}

export interface ContainerSpec {
  entityId: string;
  entityType: string;
}

/** The result of one stop: a failure is an outcome the reset reports, not an exception. */
export type StopOutcome =
  | { ok: true; containerId: string; entityId: string; alreadyStopped: boolean }
  | { ok: false; containerId: string; entityId: string; error: string };

export type ContainerEventListener = (event: {
  level: 'info' | 'warn' | 'error';
  containerId: string;
  entityId: string;
  message: string;
  errorCode?: string;
}) => void;

export interface ContainerInspection {
  containerId: string;
  running: boolean;
  status: string;
  pid: number | null;
}

export interface ContainerManager {
  readonly implementation: ContainerImplementation;
  /** Starts (and for local processes, supervises) a container for the entity; records it in `containers`. */
  start(spec: ContainerSpec): Promise<ContainerRecord>;
  /** Stops one container; resolves with a failure outcome instead of throwing when it will not stop. */
  stop(containerId: string): Promise<StopOutcome>;
  inspect(containerId: string): Promise<ContainerInspection>;
  /** Records of containers that may still be alive (what a reset must stop). */
  listStoppable(): Promise<ContainerRecord[]>;
  /** Boot: bring records left by an earlier runtime process up to date (entity id → entity type). */
  recover?(entityTypes: Map<string, string>): Promise<void>;
  /** Where supervision events (exits, restarts, failures) go; the runtime sends them to its log. */
  setEventListener?(listener: ContainerEventListener): void;
  /** Process shutdown: releases what the manager holds (local children are not left behind). */
  close(): Promise<void>;
}
