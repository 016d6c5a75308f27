/** The runtime as runtime.status and health.check report it. */
import type { Result } from '@switchboard/contract';
import type { Clock, Store } from '@switchboard/store';
import type { LoadedBundle } from './bundle/load';
import type { Dispatcher } from './dispatcher';
import type { Ingress } from './ingress';
import type { ModelProvider } from './providers/provider';

export interface ComponentHealth {
  ok: boolean;
  latency_ms: number;
  detail?: string;
}

/** A due delivery waiting longer than this marks the dispatcher degraded. */
const DISPATCH_LAG_DEGRADED_MS = 30_000;

/**
 * Runtime components for health.check: the dispatcher (running, and how far the oldest due
 * delivery is behind) and the model provider in use.
 */
export async function runtimeHealthChecks(
  store: Store,
  clock: Clock,
  d: Pick<Dispatcher, 'isRunning' | 'claimsArePaused' | 'inFlightCount'>,
  provider: ModelProvider,
): Promise<Record<string, ComponentHealth>> {
  const started = performance.now();
  const now = clock.now();
  const oldestDueAt = await store.runWrites.oldestDueAt(now.toISOString());
  // Due times are on the store's clock (the database's on PostgreSQL), so the lag is too.
  const lagMs = oldestDueAt ? now.getTime() - Date.parse(oldestDueAt) : 0;
  const running = d.isRunning && !d.claimsArePaused;
  const dispatcherDetail = !d.isRunning
    ? 'dispatcher stopped'
    : d.claimsArePaused
      ? 'claims paused'
      : lagMs > DISPATCH_LAG_DEGRADED_MS
        ? `oldest due delivery waiting ${Math.round(lagMs / 1000)} s`
        : d.inFlightCount === 0
          ? 'idle, no handler running'
          : `${d.inFlightCount} handler${d.inFlightCount === 1 ? '' : 's'} running`;
  return {
    dispatcher: { ok: running && lagMs <= DISPATCH_LAG_DEGRADED_MS, latency_ms: Math.round((performance.now() - started) * 100) / 100, detail: dispatcherDetail },
    model_provider: { ok: true, latency_ms: 0, detail: provider.name },
  };
}

/** runtime.status: ingress, queue and open work, whether a reset holds the runtime, the boot bundle. */
export async function runtimeStatus(of: {
  bundle: LoadedBundle;
  store: Store;
  ingress: Pick<Ingress, 'state' | 'queueDepth'>;
  startedAt: Date;
  resetting: boolean;
}): Promise<Result<'runtime.status'>> {
  const { bundle, store, ingress: ing } = of;
  const [ingress, queue_depth, active_runs, pending] = await Promise.all([ing.state(), ing.queueDepth(), store.runWrites.countByStatus('runs', ['running']), store.deliveries.openCount()]);
  const def = bundle.definition;
  return {
    name: def.name,
    ingress,
    queue_depth,
    active_runs,
    pending_deliveries: pending,
    reset_in_progress: of.resetting,
    bundle: { name: def.name, version: def.version, fingerprint: bundle.fingerprint, loaded_at: bundle.loadedAt },
    started_at: of.startedAt.toISOString(),
  };
}
