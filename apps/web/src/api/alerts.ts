/**
 * alert.* for the Alerts screen: rules, destinations, the history of notices and silences. Every
 * change reads the lists it can alter again (a silence shows on its rule, a test notice in the
 * history, a deleted destination cancels its pending notices).
 */
import { infiniteQueryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AlertDestination, AlertNotice, AlertRule, AlertSilence, MethodName, ParamsInput, Result } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type { AlertDestination, AlertNotice, AlertRule, AlertSilence };
export type NoticeFilters = Omit<ParamsInput<'alert.notices'>, 'cursor' | 'limit'>;
export type CreatedDestination = Result<'alert.destination_create'>;

export const NOTICES_PAGE_SIZE = 50;
/** While a notice is still being sent, the history reads itself again this often. */
export const PENDING_REFRESH_MS = 2_000;

export function useAlertRules() {
  return useQuery({ queryKey: rpcKeys.query('alert.rules', {}), queryFn: ({ signal }) => rpc('alert.rules', {}, signal), staleTime: 0 });
}

export function useAlertDestinations() {
  return useQuery({ queryKey: rpcKeys.query('alert.destinations', {}), queryFn: ({ signal }) => rpc('alert.destinations', {}, signal), staleTime: 0 });
}

export function useAlertSilences(includeEnded: boolean) {
  const params = includeEnded ? { include_ended: true } : {};
  return useQuery({ queryKey: rpcKeys.query('alert.silences', params), queryFn: ({ signal }) => rpc('alert.silences', params, signal), staleTime: 0 });
}

export function noticesQuery(filters: NoticeFilters) {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('alert.notices', filters),
    queryFn: ({ pageParam, signal }) => rpc('alert.notices', { ...filters, limit: NOTICES_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
    staleTime: 0,
    // Pending notices change status on their own (sent, retried, failed): follow them until none is left.
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.items.some((n) => n.status === 'pending')) ? PENDING_REFRESH_MS : false),
  });
}

export function useAlertNotices(filters: NoticeFilters) {
  return useInfiniteQuery(noticesQuery(filters));
}

function useRefresh(methods: MethodName[]) {
  const queryClient = useQueryClient();
  return () => Promise.all(methods.map((m) => queryClient.invalidateQueries({ queryKey: rpcKeys.method(m) })));
}

type Keyed<M extends MethodName> = ParamsInput<M> & { idempotency_key: string };

function useAlertMutation<M extends MethodName>(method: M, refreshes: MethodName[]) {
  const refresh = useRefresh(refreshes);
  return useMutation({
    mutationFn: (params: Keyed<M>) => rpc(method, params),
    onSettled: refresh,
  });
}

export const useCreateRule = () => useAlertMutation('alert.rule_create', ['alert.rules']);
export const useUpdateRule = () => useAlertMutation('alert.rule_update', ['alert.rules']);
export const useDeleteRule = () => useAlertMutation('alert.rule_delete', ['alert.rules']);
export const useCreateDestination = () => useAlertMutation('alert.destination_create', ['alert.destinations']);
export const useDeleteDestination = () => useAlertMutation('alert.destination_delete', ['alert.destinations', 'alert.notices']);
export const useSendTestNotice = () => useAlertMutation('alert.test', ['alert.notices']);
export const useResendNotice = () => useAlertMutation('alert.notice_resend', ['alert.notices']);
export const useCreateSilence = () => useAlertMutation('alert.silence_create', ['alert.silences', 'alert.rules']);
export const useEndSilence = () => useAlertMutation('alert.silence_end', ['alert.silences', 'alert.rules']);
