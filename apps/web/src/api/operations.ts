/**
 * Redrive and replay: the estimate (a dry run, never keyed), the apply, the operations it starts
 * (polled while running) and the simulated tool servers whose faults an operator can turn off.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ParamsInput, Result } from '@switchboard/contract';
import { rpc } from './client';
import { rpcKeys } from './query-client';

export type RecoveryKind = 'redrive' | 'replay';
export type Operation = Result<'operation.get'>['operation'];
export type OperationPlan = Result<'event.redrive'>['plan'];
/** What an operation acts on: the event.list selection plus explicit ids. */
export type RecoverySelection = Omit<ParamsInput<'event.redrive'>, 'dry_run' | 'expected_plan_hash' | 'rate_per_second' | 'idempotency_key'> &
  Pick<ParamsInput<'event.replay'>, 'event_ids'>;

const methodOf = (kind: RecoveryKind) => (kind === 'redrive' ? 'event.redrive' : 'event.replay');

function selectionParams(kind: RecoveryKind, selection: RecoverySelection) {
  const { event_ids, dead_letter_ids, ...rest } = selection;
  return kind === 'redrive' ? { ...rest, ...(dead_letter_ids ? { dead_letter_ids } : {}) } : { ...rest, ...(event_ids ? { event_ids } : {}) };
}

export function useRecoveryEstimate(kind: RecoveryKind, selection: RecoverySelection, enabled: boolean) {
  return useQuery({
    queryKey: rpcKeys.query(methodOf(kind), selection, 'estimate'),
    queryFn: ({ signal }) => rpc(methodOf(kind), { ...selectionParams(kind, selection), dry_run: true }, signal),
    enabled,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

export function useRecoveryApply(kind: RecoveryKind) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: { selection: RecoverySelection; expected_plan_hash: string; rate_per_second: number; stop_after_failures?: number; idempotency_key: string }) =>
      rpc(methodOf(kind), {
        ...selectionParams(kind, params.selection),
        dry_run: false,
        expected_plan_hash: params.expected_plan_hash,
        rate_per_second: params.rate_per_second,
        ...(params.stop_after_failures ? { stop_after_failures: params.stop_after_failures } : {}),
        idempotency_key: params.idempotency_key,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: rpcKeys.method('operation.list') }),
  });
}

export function operationQuery(operationId: string) {
  return queryOptions({
    queryKey: rpcKeys.query('operation.get', { operation_id: operationId }),
    queryFn: ({ signal }) => rpc('operation.get', { operation_id: operationId, items_limit: 100 }, signal),
    staleTime: 0,
    // Poll while the operation runs, and while what it sent is still being delivered.
    refetchInterval: (q) => {
      const op = q.state.data?.operation;
      return !op || op.status === 'running' || op.outcomes.pending > 0 ? 1000 : false;
    },
  });
}

export function useOperation(operationId: string | undefined) {
  return useQuery({ ...operationQuery(operationId ?? ''), enabled: Boolean(operationId) });
}

/** Operations, polled: every `busyMs` while one of them runs, every 15 s otherwise. */
export function useOperations(params: ParamsInput<'operation.list'> = {}, busyMs = 3000) {
  return useQuery({
    queryKey: rpcKeys.query('operation.list', params),
    queryFn: ({ signal }) => rpc('operation.list', params, signal),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.operations.some((o) => o.status === 'running') ? busyMs : 15_000),
  });
}

export function useCancelOperation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: { operation_id: string; idempotency_key: string }) => rpc('operation.cancel', params),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: rpcKeys.method('operation.list') }),
        queryClient.invalidateQueries({ queryKey: rpcKeys.method('operation.get') }),
      ]),
  });
}

const toolServersQuery = queryOptions({
  queryKey: rpcKeys.query('runtime.tool_servers', {}),
  queryFn: ({ signal }) => rpc('runtime.tool_servers', {}, signal),
  staleTime: 0,
});

export function useToolServers() {
  return useQuery(toolServersQuery);
}

export function useSetToolServerFaults() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (params: { tool_server: string; faults: 'on' | 'off'; idempotency_key: string }) => rpc('runtime.set_tool_server_faults', params),
    onSettled: () => queryClient.invalidateQueries({ queryKey: toolServersQuery.queryKey }),
  });
}
