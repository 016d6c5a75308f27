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

/** Query keys for RPC reads: the method name first, so one method's data can be invalidated at once. */
export function rpcKey(method: string, params: unknown): readonly unknown[] {
  return ['rpc', method, params];
}
