/** run.get: the run summary shown above a run's events. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export function runQuery(runId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('run.get', { run_id: runId }),
    queryFn: ({ signal }) => rpc('run.get', { run_id: runId }, signal),
  });
}

export function useRun(runId: string | undefined) {
  return useQuery({ ...runQuery(runId ?? ''), enabled: Boolean(runId) });
}
