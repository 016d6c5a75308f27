/**
 * A fresh PostgreSQL database for a test whose servers share one store (several nodes). The server
 * is found as the store suites find theirs (scripts/test-postgres.mjs: SWITCHBOARD_TEST_DATABASE_URL,
 * else the local cluster). Named with the test databases' prefix, so one a crashed run leaves
 * behind is dropped by the next `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { repoRoot } from './server-process';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The admin URL, or why there is none. */
export function findTestPostgres(): { url: string } | { reason: string } {
  const found = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'test-postgres.mjs')], { encoding: 'utf8', env: process.env });
  const url = found.stdout.trim();
  return found.status === 0 && url ? { url } : { reason: found.stderr.trim() || `scripts/test-postgres.mjs exited with ${found.status}` };
}

export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `sb_test_e2e_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  // C collation: text order is byte order, as on SQLite (the store's keyset pages rely on it).
  await admin(`create database "${name}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}
