/** agent.list and agent.get: identity, status and references only; transcripts come from conversation.get. */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export function agentsQuery() {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('agent.list', {}),
    queryFn: ({ pageParam, signal }) => rpc('agent.list', { limit: 200, ...(pageParam ? { cursor: pageParam } : {}) }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    staleTime: 10_000,
  });
}

export function useAgents() {
  return useInfiniteQuery(agentsQuery());
}

export function agentQuery(agentId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('agent.get', { agent_id: agentId }),
    queryFn: ({ signal }) => rpc('agent.get', { agent_id: agentId }, signal),
    staleTime: 5_000,
  });
}

export function useAgent(agentId: string | undefined) {
  return useQuery({ ...agentQuery(agentId ?? ''), enabled: Boolean(agentId) });
}
