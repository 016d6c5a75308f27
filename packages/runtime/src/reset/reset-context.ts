/**
 * What the reset owners need from the runtime, as narrow structural types: the owners can be
 * exercised on their own, and the runtime stays free to organise its parts as it likes.
 */
import type { Clock, Store } from '@switchboard/store';
import type { LoadedBundle } from '../bundle/load';
import type { ContainerManager } from '../containers/container-manager';
import type { RuntimeLog } from '../runtime-log';

export interface ResetIngress {
  state(): Promise<'open' | 'paused'>;
  /** `asReset`: the reset whose own step this is; its writes pass the lock it holds. */
  pause(reason: string, change: { actor: string; asReset: string }): Promise<unknown>;
  /** Opens ingress and releases anything queued (exactly once). */
  resume(change: { actor: string; asReset: string }): Promise<number>;
  queueDepth(): Promise<number>;
  cancelQueued(): Promise<number>;
}

export interface ResetDispatcher {
  pauseClaims(): void;
  resumeClaims(): void;
  readonly inFlightCount: number;
  cancelPending(): Promise<{ cancelled_deliveries: number; cancelled_runs: number }>;
}

export interface ResetContext {
  store: Store;
  clock: Clock;
  bundle: LoadedBundle;
  ingress: ResetIngress;
  dispatcher: ResetDispatcher;
  containers: ContainerManager;
  log: RuntimeLog;
  /** Container starts for new entities: held while a reset runs, so the reset alone decides about containers. */
  containerStarts?: { pause(): Promise<void>; resume(): void; forgetPending(): void };
  /** Redrive and replay operations: a reset cancels the running ones. */
  operations?: { cancelAllForReset(): Promise<number> };
}

/** One failed step, as the API reports it in `errors`. */
export interface ResetError {
  scope: 'plan' | 'quiescence' | 'cleanup' | 'containers' | 'audit';
  message: string;
}
