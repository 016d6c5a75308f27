/** runtime.incidents and runtime.incident_logs: query factories and hooks for the triage screen. */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ParamsInput } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type IncidentFilters = Omit<ParamsInput<'runtime.incidents'>, 'cursor' | 'limit'>;

export const INCIDENT_PAGE_SIZE = 50;

export function incidentsQuery(filters: IncidentFilters) {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('runtime.incidents', filters),
    queryFn: ({ pageParam, signal }) =>
      rpc('runtime.incidents', { ...filters, limit: INCIDENT_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function useIncidents(filters: IncidentFilters) {
  return useInfiniteQuery(incidentsQuery(filters));
}

export function incidentLogsQuery(incidentId: string, sinceHours: number | undefined) {
  return queryOptions({
    queryKey: rpcKeys.query('runtime.incident_logs', { incident_id: incidentId, since_hours: sinceHours }),
    queryFn: ({ signal }) =>
      rpc('runtime.incident_logs', { incident_id: incidentId, limit: 50, ...(sinceHours ? { since_hours: sinceHours } : {}) }, signal),
  });
}

export function useIncidentLogs(incidentId: string | undefined, sinceHours: number | undefined) {
  return useQuery({ ...incidentLogsQuery(incidentId ?? '', sinceHours), enabled: Boolean(incidentId) });
}

export function incidentActivityQuery(incidentId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('runtime.incident_activity', { incident_id: incidentId }),
    queryFn: ({ signal }) => rpc('runtime.incident_activity', { incident_id: incidentId }, signal),
    staleTime: 0,
  });
}

export function useIncidentActivity(incidentId: string) {
  return useQuery(incidentActivityQuery(incidentId));
}

/** Sets an incident's state; the list and the activity are read again after it. */
export function useUpdateIncident() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: ParamsInput<'runtime.incident_update'> & { idempotency_key: string }) => rpc('runtime.incident_update', params),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: rpcKeys.method('runtime.incidents') }),
        queryClient.invalidateQueries({ queryKey: rpcKeys.method('runtime.incident_activity') }),
      ]),
  });
}
