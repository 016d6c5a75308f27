/**
 * Makes a test server's settled runs old, as months of running would: their settle time moved
 * back, written straight into the server's SQLite file (WAL lets a second connection write while
 * the server runs). No API ages records, and retention acts only on old ones.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { ServerProcess } from './server-process';

export function ageSettledRuns(server: ServerProcess, runIds: readonly string[], days: number): void {
  const db = new BetterSqlite3(path.join(server.dataDir, 'switchboard.db'));
  try {
    db.pragma('busy_timeout = 5000');
    const settledAt = new Date(Date.now() - days * 86_400_000).toISOString();
    const age = db.prepare('update runs set settled_at = ? where run_id = ? and settled_at is not null');
    for (const runId of runIds) age.run(settledAt, runId);
  } finally {
    db.close();
  }
}
