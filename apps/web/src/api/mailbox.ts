/**
 * mailbox.list / mailbox.get reads and the two decisions (mailbox.reject, mailbox.approve). A
 * decision carries the idempotency key of the dialog it came from, so a double click or a retried
 * request decides once; afterwards every mailbox read is refetched.
 */
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ParamsInput } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type MailboxFilter = NonNullable<ParamsInput<'mailbox.list'>['filter']>;

export const MAILBOX_PAGE_SIZE = 100;

export function mailboxListQuery(filter: MailboxFilter) {
  return infiniteQueryOptions({
    queryKey: rpcKeys.query('mailbox.list', filter),
    queryFn: ({ pageParam, signal }) =>
      rpc(
        'mailbox.list',
        { ...(Object.keys(filter).length ? { filter } : {}), limit: MAILBOX_PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) },
        signal,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function useMailboxList(filter: MailboxFilter) {
  return useInfiniteQuery(mailboxListQuery(filter));
}

export function mailboxItemQuery(mailboxId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('mailbox.get', { mailbox_id: mailboxId }),
    queryFn: ({ signal }) => rpc('mailbox.get', { mailbox_id: mailboxId }, signal),
    staleTime: 5_000,
  });
}

export function useMailboxItem(mailboxId: string | undefined) {
  return useQuery({ ...mailboxItemQuery(mailboxId ?? ''), enabled: Boolean(mailboxId) });
}

export type RejectParams = ParamsInput<'mailbox.reject'> & { idempotency_key: string };
export type ApproveParams = ParamsInput<'mailbox.approve'> & { idempotency_key: string };

function useRefreshMailbox() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('mailbox.list') }),
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('mailbox.get') }),
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('event.list') }),
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('mailbox.reject_reasons') }),
    ]);
}

/** The bundle's reject reason codes with how many rejects carry each. */
export function useRejectReasons() {
  return useQuery({
    queryKey: rpcKeys.query('mailbox.reject_reasons', {}),
    queryFn: ({ signal }) => rpc('mailbox.reject_reasons', {}, signal),
    staleTime: 0,
  });
}

export function useRejectItem() {
  const refresh = useRefreshMailbox();
  return useMutation({
    mutationFn: (params: RejectParams) => rpc('mailbox.reject', params),
    onSettled: refresh,
  });
}

export function useApproveItem() {
  const refresh = useRefreshMailbox();
  return useMutation({
    mutationFn: (params: ApproveParams) => rpc('mailbox.approve', params),
    onSettled: refresh,
  });
}
