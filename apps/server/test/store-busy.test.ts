/** A store held by another writer answers STORE_BUSY (retryable), never INTERNAL. */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';

/** Short, so the writes that wait out the lock (the publish, the server's own) end soon. */
const BUSY_TIMEOUT_MS = 500;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_SQLITE_BUSY_TIMEOUT_MS: String(BUSY_TIMEOUT_MS) } });
});
afterAll(() => server.close());

it('a publish while another connection holds the write lock is STORE_BUSY with retryable true; it succeeds once the lock is gone', async () => {
  const other = new BetterSqlite3(path.join(server.dataDir, 'switchboard.db'));
  other.exec('BEGIN EXCLUSIVE');
  try {
    const busy = await server.rpc('event.publish', { event_name: 'tick', payload: { n: 1 } });
    expectRpcError(busy, 'STORE_BUSY');
    expect(busy.error.data.retryable).toBe(true);
  } finally {
    other.exec('COMMIT');
    other.close();
  }
  const after = await server.rpc('event.publish', { event_name: 'tick', payload: { n: 1 } });
  expect(after.result?.status).toBe('running');
  // better-sqlite3 waits out the busy timeout on the main thread, and the server's own background
  // writes (heartbeat, token use) wait too while the lock is held: hence the short timeout above
  // (docs/performance-notes.md has what the default cost).
}, 90_000);
