/**
 * The live servers, as health.check reports them. Heartbeats carry that same result, so while
 * they are fresh the console reads nothing more; when they stop (connecting, reconnecting, stale)
 * a health.check read of its own takes over, polled until they are back.
 */
import { useQuery } from '@tanstack/react-query';
import type { HealthCheckResult } from '@switchboard/contract';
import { rpc } from './client';
import { heartbeatIndicator, useHeartbeat } from './heartbeat';
import { rpcKeys } from './query-client';

export interface ServersReport {
  result: HealthCheckResult;
  /** Client clock (ms) when the report arrived. */
  receivedAt: number;
  source: 'heartbeat' | 'health.check';
}

export interface LiveServers {
  report: ServersReport | undefined;
  isPending: boolean;
  error: unknown;
  refetch: () => void;
}

const FALLBACK_POLL_MS = 5_000;

export function useLiveServers(): LiveServers {
  const hb = useHeartbeat();
  const state = heartbeatIndicator(hb);
  const fromHeartbeat: ServersReport | undefined =
    (state === 'healthy' || state === 'degraded' || state === 'down') && hb.last && hb.lastAt !== null
      ? { result: hb.last, receivedAt: hb.lastAt, source: 'heartbeat' }
      : undefined;
  const query = useQuery({
    queryKey: rpcKeys.query('health.check', {}),
    queryFn: ({ signal }) => rpc('health.check', {}, signal),
    enabled: !fromHeartbeat,
    staleTime: 0,
    refetchInterval: fromHeartbeat ? false : FALLBACK_POLL_MS,
  });
  if (fromHeartbeat) return { report: fromHeartbeat, isPending: false, error: null, refetch: () => undefined };
  // While the server is unreachable the last known report stays on screen (the shell marks it stale).
  const lastKnown: ServersReport | undefined = hb.last && hb.lastAt !== null ? { result: hb.last, receivedAt: hb.lastAt, source: 'heartbeat' } : undefined;
  return {
    report: query.data ? { result: query.data, receivedAt: query.dataUpdatedAt, source: 'health.check' } : lastKnown,
    isPending: query.isPending,
    error: query.error,
    refetch: () => void query.refetch(),
  };
}
