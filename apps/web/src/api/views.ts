/**
 * view.* for the filter bars' saved views: the views of one list (mine, then others' shared),
 * and saving, renaming, sharing and deleting them. Every change reads the lists again.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodName, ParamsInput, SavedView, SavedViewFilters, SavedViewList } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type { SavedView, SavedViewFilters, SavedViewList };

export function useSavedViews(list: SavedViewList) {
  const params = { list };
  return useQuery({ queryKey: rpcKeys.query('view.list', params), queryFn: ({ signal }) => rpc('view.list', params, signal), staleTime: 10_000 });
}

type Keyed<M extends MethodName> = ParamsInput<M> & { idempotency_key: string };

function useViewMutation<M extends 'view.create' | 'view.update' | 'view.delete'>(method: M) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: Keyed<M>) => rpc(method, params),
    onSettled: () => queryClient.invalidateQueries({ queryKey: rpcKeys.method('view.list') }),
  });
}

export const useCreateView = () => useViewMutation('view.create');
export const useUpdateView = () => useViewMutation('view.update');
export const useDeleteView = () => useViewMutation('view.delete');
