import type { Result } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { Store } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { tracingEnabled } from '../../observability/tracing';
import { retentionRunOf } from '../../records/retention';

/** Store latency above this marks the runtime degraded rather than healthy. */
const STORE_DEGRADED_MS = 250;

/** Shared by the health.check method and WebSocket heartbeats, which carry the same shape. */
export async function computeHealth(store: Store, runtime: Runtime): Promise<Result<'health.check'>> {
  const checks: Result<'health.check'>['checks'] = {};
  let storeOk = true;
  try {
    const latency = await store.ping();
    checks.store = {
      ok: latency < STORE_DEGRADED_MS,
      latency_ms: Math.round(latency * 100) / 100,
      ...(latency >= STORE_DEGRADED_MS ? { detail: `slow: ${Math.round(latency)} ms` } : {}),
    };
  } catch {
    // Driver messages can carry SQL and file paths; clients only learn that the store is down.
    storeOk = false;
    checks.store = { ok: false, latency_ms: 0, detail: 'unreachable' };
  }
  const runtimeChecks = storeOk ? await runtime.healthChecks() : {};
  Object.assign(checks, runtimeChecks);
  const allOk = Object.values(checks).every((c) => c.ok);
  const ingress = storeOk ? await runtime.ingressState() : 'open';
  const servers = storeOk ? await runtime.servers.liveServers().catch(() => []) : [];
  const retention = storeOk ? await retentionHealth(runtime).catch(() => undefined) : undefined;
  return {
    ok: storeOk && allOk,
    ts: store.clock.now().toISOString(),
    status: !storeOk ? 'down' : allOk ? 'ok' : 'degraded',
    uptime_s: Math.round((Date.now() - runtime.startedAt.getTime()) / 100) / 10,
    ingress,
    bundle: { fingerprint: runtime.bundle.fingerprint, name: runtime.name },
    checks,
    servers,
    tracing: { enabled: tracingEnabled() },
    ...(retention ? { retention } : {}),
  };
}

async function retentionHealth(runtime: Runtime): Promise<Result<'health.check'>['retention']> {
  const { enabled, lastRun, nextRunAt } = await runtime.retention.summary();
  return { enabled, ...(lastRun ? { last_run: retentionRunOf(lastRun) } : {}), ...(nextRunAt ? { next_run_at: nextRunAt } : {}) };
}

export const healthCheck: Handler<'health.check'> = async (_params, ctx) => computeHealth(ctx.store, ctx.runtime);
