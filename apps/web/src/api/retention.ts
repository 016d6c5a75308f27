/**
 * runtime.retention (settings, last pass and preview, next pass, store size) and
 * runtime.retention_run: a preview, or a pass now. A pass removes records everywhere: after it,
 * every cached read is read again.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Result } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type RetentionStatus = Result<'runtime.retention'>;
export type RetentionRunResult = Result<'runtime.retention_run'>;
export type RetentionRun = NonNullable<RetentionStatus['last_run']>;

export const retentionQuery = queryOptions({
  queryKey: rpcKeys.query('runtime.retention', {}),
  queryFn: ({ signal }) => rpc('runtime.retention', {}, signal),
  staleTime: 0,
  refetchInterval: 30_000,
});

export function useRetention() {
  return useQuery(retentionQuery);
}

export function useRetentionRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (dryRun: boolean) => rpc('runtime.retention_run', { dry_run: dryRun }),
    onSettled: (_result, _error, dryRun) => queryClient.invalidateQueries({ queryKey: dryRun ? retentionQuery.queryKey : rpcKeys.all }),
  });
}
