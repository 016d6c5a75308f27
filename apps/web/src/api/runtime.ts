/**
 * runtime.status and the runtime's controls: pause/resume ingress and the destructive reset
 * (runtime.nuke). Mutations take the idempotency key of the dialog that sends them.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ParamsInput, Result } from '@switchboard/contract';
import { rpc } from './client';
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

export function usePauseIngress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: ParamsInput<'runtime.pause'> & { idempotency_key: string }) => rpc('runtime.pause', params),
    onSettled: () => queryClient.invalidateQueries({ queryKey: runtimeStatusQuery.queryKey }),
  });
}

export function useResumeIngress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: ParamsInput<'runtime.resume'> & { idempotency_key: string }) => rpc('runtime.resume', params),
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
