import { RpcError } from '@switchboard/contract';

/**
 * PostgreSQL SQLSTATEs of a lost or refused connection, or a server out of room for this one:
 * admin/crash shutdown, cannot connect now, connection exceptions, insufficient resources (class
 * 53: too many connections, for the server or the role; disk full; out of memory).
 */
const CONNECTION_LOST_STATES = /^(57P0[123]|08...|53...)$/;
/** PostgreSQL SQLSTATEs a retry resolves: serialization failure, deadlock detected. */
const CONFLICT_STATES = new Set(['40001', '40P01']);
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Passing store conditions, told to the client as retryable errors, never INTERNAL: SQLite's
 * "database is locked" (SQLITE_BUSY and its extended codes) and a PostgreSQL deadlock or
 * serialization failure are STORE_BUSY; a PostgreSQL connection that was terminated, refused or
 * lost (a restart, pg_terminate_backend), or that the server had no room for (max_connections, a
 * role's connection limit), is STORE_UNAVAILABLE. Driver messages stay in the log.
 */
export function retryableStoreError(err: unknown): RpcError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_BUSY') || CONFLICT_STATES.has(code)) return new RpcError('STORE_BUSY');
    if (CONNECTION_LOST_STATES.test(code) || SOCKET_ERRORS.has(code)) return new RpcError('STORE_UNAVAILABLE');
  }
  const message = err instanceof Error ? err.message : '';
  if (/^Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/.test(message)) return new RpcError('STORE_UNAVAILABLE');
  return undefined;
}
