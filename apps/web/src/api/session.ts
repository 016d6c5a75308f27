/** Browser session: who is signed in, sign-in and sign-out. */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { fetchSession, signIn, signOut } from './client';
import { rpcKeys } from './query-client';

export const sessionQuery = queryOptions({
  queryKey: ['session'],
  queryFn: fetchSession,
  staleTime: Infinity,
  retry: 2,
});

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
  });
}
