/** conversation.list (sessions, newest first) and conversation.get (one transcript with all turns). */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { ParamsInput } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type ConversationFilter = NonNullable<ParamsInput<'conversation.list'>['filter']>;

export function conversationsQuery(filter: ConversationFilter) {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('conversation.list', filter),
    queryFn: ({ pageParam, signal }) =>
      rpc(
        'conversation.list',
        { ...(Object.keys(filter).length ? { filter } : {}), limit: 100, ...(pageParam ? { cursor: pageParam } : {}) },
        signal,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function useConversations(filter: ConversationFilter) {
  return useInfiniteQuery(conversationsQuery(filter));
}

export function conversationQuery(sessionId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('conversation.get', { session_id: sessionId }),
    queryFn: ({ signal }) => rpc('conversation.get', { session_id: sessionId }, signal),
  });
}

export function useConversation(sessionId: string | undefined) {
  return useQuery({ ...conversationQuery(sessionId ?? ''), enabled: Boolean(sessionId) });
}
