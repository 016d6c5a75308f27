/** audit.list for the Audit screen: keyset pages, newest first, with the screen's URL filters. */
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { ParamsInput, Result } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type AuditFilters = Omit<ParamsInput<'audit.list'>, 'cursor' | 'limit'>;
export type AuditRecord = Result<'audit.list'>['items'][number];

export const AUDIT_PAGE_SIZE = 50;

export function auditQuery(filters: AuditFilters) {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('audit.list', filters),
    queryFn: ({ pageParam, signal }) => rpc('audit.list', { ...filters, limit: AUDIT_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    staleTime: 0,
  });
}

export function useAudit(filters: AuditFilters) {
  return useInfiniteQuery(auditQuery(filters));
}
