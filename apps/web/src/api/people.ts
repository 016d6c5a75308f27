/**
 * People and their tokens, for the Admin screen: user.* and token.* (the users:admin scope).
 * Every change reads both lists again, since a user change alters what their tokens may do.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ParamsInput, Result } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';
import { sessionQuery } from './session';

export type UserRecord = Result<'user.list'>['items'][number];
export type TokenRecord = Result<'token.list'>['items'][number];
export type CreatedToken = Result<'token.create'>;

export function useUsers() {
  return useQuery({
    queryKey: rpcKeys.query('user.list', {}),
    queryFn: ({ signal }) => rpc('user.list', { include_disabled: true }, signal),
    staleTime: 0,
  });
}

/** Every token, or one person's; revoked ones too (they say when they were revoked). */
export function useTokens(userId: string | undefined) {
  const params = userId ? { user_id: userId } : {};
  return useQuery({
    queryKey: rpcKeys.query('token.list', params),
    queryFn: ({ signal }) => rpc('token.list', { ...params, include_revoked: true }, signal),
    staleTime: 0,
  });
}

function useRefreshPeople() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('user.list') }),
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('token.list') }),
      // The admin may have changed their own name or role.
      queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
    ]);
}

export function useCreateUser() {
  const refresh = useRefreshPeople();
  return useMutation({
    mutationFn: (params: ParamsInput<'user.create'> & { idempotency_key: string }) => rpc('user.create', params),
    onSettled: refresh,
  });
}

export function useUpdateUser() {
  const refresh = useRefreshPeople();
  return useMutation({
    mutationFn: (params: ParamsInput<'user.update'> & { idempotency_key: string }) => rpc('user.update', params),
    onSettled: refresh,
  });
}

export function useCreateToken() {
  const refresh = useRefreshPeople();
  return useMutation({
    mutationFn: (params: ParamsInput<'token.create'> & { idempotency_key: string }) => rpc('token.create', params),
    onSettled: refresh,
  });
}

export function useRevokeToken() {
  const refresh = useRefreshPeople();
  return useMutation({
    mutationFn: (params: ParamsInput<'token.revoke'> & { idempotency_key: string }) => rpc('token.revoke', params),
    onSettled: refresh,
  });
}
