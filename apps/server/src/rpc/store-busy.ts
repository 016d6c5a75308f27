import { RpcError } from '@switchboard/contract';

/**
 * SQLite's "database is locked" (SQLITE_BUSY and its extended codes), from any cause, is a
 * passing condition: the client is told to retry (STORE_BUSY, retryable), never INTERNAL.
 */
export function storeBusyError(err: unknown): RpcError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) return new RpcError('STORE_BUSY');
  return undefined;
}
