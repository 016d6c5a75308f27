import type { MethodName } from '@switchboard/contract';
/**
 * The console's react-query client. Retries only what the server marked retryable, and keeps list
 * data still until the operator asks for more, so rows do not move under the cursor.
 */
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) => error instanceof ApiError && error.retryable && failureCount < 2,
        retryDelay: (attempt) => Math.min(4000, 500 * 2 ** attempt),
      },
      mutations: { retry: false },
    },
  });
}

/**
 * Query keys for RPC reads, built only here: `['rpc', method, view, params]`. The method comes from
 * the contract, so a renamed method breaks its keys at compile time, and invalidating
 * `rpcKeys.method(m)` reaches every query of that method, whatever view of it a screen holds (a
 * page of a list, one record, a live-tail count).
 */
export const rpcKeys = {
  all: ['rpc'] as const,
  method: <M extends MethodName>(method: M) => ['rpc', method] as const,
  query: <M extends MethodName>(method: M, params: unknown, view = 'default') => ['rpc', method, view, params] as const,
};
