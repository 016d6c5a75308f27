/**
 * A PostgreSQL database of a spec's own, for servers that share one (several nodes): found the way
 * the store suites find theirs (SWITCHBOARD_TEST_DATABASE_URL, or a local cluster), created for
 * the spec and dropped after it. Named like the store suites' databases, so a run that died
 * before dropping it leaves nothing test-all does not clean.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { findTestPostgres } from '../scripts/test-postgres.mjs';

export interface SpecDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The admin URL of a PostgreSQL server the tests may use, or (url undefined) why there is none. */
export function testPostgres(): { url: string | undefined; reason: string } {
  const found = findTestPostgres();
  return found.url ? { url: found.url, reason: '' } : { url: undefined, reason: found.reason ?? 'no PostgreSQL found' };
}

export async function createSpecDatabase(adminUrl: string): Promise<SpecDatabase> {
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
  // C collation: text order is byte order, as on SQLite (ids and timestamps in keyset pages).
  await admin(`create database "${name}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}
