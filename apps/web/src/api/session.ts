/** Browser session: who is signed in, sign-in and sign-out. */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { fetchAuthConfig, fetchSession, signIn, signOut } from './client';
import { rpcKeys } from './query-client';

export const sessionQuery = queryOptions({
  queryKey: ['session'],
  queryFn: fetchSession,
  staleTime: Infinity,
  retry: 2,
});

export const authConfigQuery = queryOptions({
  queryKey: ['auth-config'],
  queryFn: fetchAuthConfig,
  staleTime: Infinity,
  retry: 2,
});

/** Whether this server offers single sign-on (the token paste is always there). */
export function useAuthConfig() {
  return useQuery(authConfigQuery);
}

export function useSession() {
  return useQuery(sessionQuery);
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => signIn(token),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: rpcKeys.all });
      await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
    },
  });
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: signOut,
    onSettled: () => {
      queryClient.removeQueries({ queryKey: rpcKeys.all });
      queryClient.setQueryData(sessionQuery.queryKey, null);
    },
    // A single sign-on session: end the provider's session too, which then sends the browser back here.
    onSuccess: (answer) => {
      if (answer?.end_session_url) window.location.assign(answer.end_session_url);
    },
  });
}
