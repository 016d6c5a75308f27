/**
 * runtime.status and the runtime's controls: pause/resume ingress and the destructive reset
 * (runtime.nuke). Mutations take the idempotency key of the dialog that sends them.
 */
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ParamsInput, Result } from '@switchboard/contract';
import { rpc } from './client';
import { useHeartbeat } from './heartbeat';
import { rpcKeys } from './query-client';

export type RuntimeStatus = Result<'runtime.status'>;
export type NukeResult = Result<'runtime.nuke'>;

export const runtimeStatusQuery = queryOptions({
  queryKey: rpcKeys.query('runtime.status', {}),
  queryFn: ({ signal }) => rpc('runtime.status', {}, signal),
  staleTime: 0,
  refetchInterval: 5_000,
});

export function useRuntimeStatus() {
  return useQuery(runtimeStatusQuery);
}

/** What a pause or resume answered, on screen at once (the status read that follows confirms it). */
function setIngress(queryClient: QueryClient, ingress: RuntimeStatus['ingress']): void {
  queryClient.setQueryData<RuntimeStatus>(runtimeStatusQuery.queryKey, (old) =>
    old ? { ...old, ingress, ...(ingress === 'open' ? { queue_depth: 0 } : {}) } : old,
  );
}

/**
 * Ingress as the console knows it now: the newer of runtime.status (set from this console's own
 * pause or resume answer, and read again when the change feed reports an ingress change made
 * anywhere) and the last heartbeat (every few seconds, the fallback when the feed is lost).
 */
export function useIngress(): { ingress: RuntimeStatus['ingress'] | undefined; queueDepth: number | undefined } {
  const { last, lastAt } = useHeartbeat();
  const status = useQuery({ ...runtimeStatusQuery, refetchInterval: false });
  const fromStatus = status.data ? { ingress: status.data.ingress, at: status.dataUpdatedAt } : undefined;
  const fromHeartbeat = last && lastAt !== null ? { ingress: last.ingress, at: lastAt } : undefined;
  const newest = !fromStatus ? fromHeartbeat : !fromHeartbeat || fromStatus.at >= fromHeartbeat.at ? fromStatus : fromHeartbeat;
  const ingress = newest?.ingress;
  // The depth is read only while paused; it is stale once the heartbeat says otherwise.
  const queueDepth = ingress === 'paused' && status.data?.ingress === 'paused' ? status.data.queue_depth : undefined;
  return { ingress, queueDepth };
}

export function usePauseIngress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: ParamsInput<'runtime.pause'> & { idempotency_key: string }) => rpc('runtime.pause', params),
    onSuccess: (r) => setIngress(queryClient, r.ingress),
    onSettled: () => queryClient.invalidateQueries({ queryKey: runtimeStatusQuery.queryKey }),
  });
}

export function useResumeIngress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: ParamsInput<'runtime.resume'> & { idempotency_key: string }) => rpc('runtime.resume', params),
    onSuccess: (r) => {
      if (r.ok) setIngress(queryClient, 'open');
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: runtimeStatusQuery.queryKey }),
  });
}

/** The side-effect-free preview; never carries the dialog's key (that belongs to the apply). */
export function useNukeDryRun() {
  return useMutation({ mutationFn: () => rpc('runtime.nuke', { dry_run: true }) });
}

export function useNukeApply() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: { idempotency_key: string; expected_plan_hash: string; reason: string }) =>
      rpc('runtime.nuke', { dry_run: false, ...params }),
    // Every stored record may be gone: drop all cached reads, not just the status.
    onSettled: () => queryClient.invalidateQueries({ queryKey: rpcKeys.all }),
  });
}

export function useResets() {
  return useQuery({
    queryKey: rpcKeys.query('runtime.resets', {}),
    queryFn: ({ signal }) => rpc('runtime.resets', { limit: 20 }, signal),
    staleTime: 0,
  });
}

/** Publishes queued while ingress is paused; read while it is. */
export function useQueuedPublishes(enabled: boolean) {
  return useQuery({
    queryKey: rpcKeys.query('runtime.queue', {}),
    queryFn: ({ signal }) => rpc('runtime.queue', { limit: 100 }, signal),
    enabled,
    staleTime: 0,
    refetchInterval: enabled ? 5_000 : false,
  });
}
