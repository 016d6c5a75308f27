/** event.list: the event browser's pages, one event by id, and the live-tail "new events" count. */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { ParamsInput } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type EventQuery = Omit<ParamsInput<'event.list'>, 'cursor' | 'limit'>;

export const EVENT_PAGE_SIZE = 250;
/** The live tail counts at most this many new events; beyond it the bar says "N+". */
export const NEW_EVENTS_COUNT_CAP = 500;

export function eventsQuery(query: EventQuery) {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('event.list', query),
    queryFn: ({ pageParam, signal }) =>
      rpc('event.list', { ...query, limit: EVENT_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    staleTime: Infinity,
  });
}

export function useEvents(query: EventQuery) {
  return useInfiniteQuery(eventsQuery(query));
}

export function eventQuery(eventId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('event.list', { event_id: eventId }, 'one'),
    queryFn: async ({ signal }) => {
      const { events } = await rpc('event.list', { filter: { event_id: eventId }, limit: 1 }, signal);
      return events[0] ?? null;
    },
  });
}

export function useEvent(eventId: string | undefined) {
  return useQuery({ ...eventQuery(eventId ?? ''), enabled: Boolean(eventId) });
}

/**
 * Events newer than the newest loaded row (same filters), polled while live tail is on. `since` is
 * inclusive, so events already on screen are subtracted by id.
 */
export function useNewEventCount(query: EventQuery, newest: { created_at: string; ids: Set<string> } | undefined, enabled: boolean) {
  return useQuery({
    queryKey: rpcKeys.query('event.list', { query, since: newest?.created_at }, 'new-count'),
    queryFn: async ({ signal }) => {
      const { events, next_cursor } = await rpc(
        'event.list',
        { ...query, since: newest!.created_at, until: undefined, limit: NEW_EVENTS_COUNT_CAP },
        signal,
      );
      const fresh = events.filter((e) => !newest!.ids.has(e.event_id)).length;
      return { count: fresh, more: Boolean(next_cursor) };
    },
    enabled: enabled && Boolean(newest),
    refetchInterval: 3000,
    staleTime: 0,
  });
}

/** The boot bundle's event catalog; it changes only with a new boot. */
export function useCatalog() {
  return useQuery({
    queryKey: rpcKeys.query('runtime.catalog', {}),
    queryFn: ({ signal }) => rpc('runtime.catalog', {}, signal),
    staleTime: Infinity,
  });
}

/** The events replays published of one event ("Replayed as …"), with their runs. */
export function useReplays(eventId: string | undefined) {
  return useQuery({
    queryKey: rpcKeys.query('event.replays', { event_id: eventId }),
    queryFn: ({ signal }) => rpc('event.replays', { event_id: eventId! }, signal),
    enabled: Boolean(eventId),
  });
}
