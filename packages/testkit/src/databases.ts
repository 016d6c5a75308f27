/**
 * Databases for tests and benchmarks: SQLite data folders in the temp directory, and PostgreSQL
 * databases created on a server the tests may use (C collation: text order is byte order, as on
 * SQLite, for ids and timestamps in keyset pages) and dropped after.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { TEST_DATABASE_PREFIX, TEST_DATABASE_URL_ENV, prepareTestStore, testDatabaseFor } from '@switchboard/store/testing';
import { dropDatabase, findTestPostgres } from '../../../scripts/test-postgres.mjs';

export { prepareTestStore, testDatabaseFor };

/** A fresh folder under the temp directory, `switchboard-<prefix>-XXXXXX`; the caller removes it (removeDataDir). */
export function temporaryDataDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `switchboard-${prefix}-`));
}

export function removeDataDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The admin URL of a PostgreSQL server the tests may use (SWITCHBOARD_TEST_DATABASE_URL, or a local cluster), or (url undefined) why there is none. */
export function testPostgres(): { url: string | undefined; reason: string } {
  const found = findTestPostgres();
  return found.url ? { url: found.url, reason: '' } : { url: undefined, reason: found.reason ?? 'no PostgreSQL found' };
}

/** One PostgreSQL server, through a role that may create databases. */
export class PostgresAdmin {
  constructor(readonly adminUrl: string) {}

  /** One statement (or more) on a connection of its own, closed after. */
  async run<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  urlOf(database: string): string {
    const url = new URL(this.adminUrl);
    url.pathname = `/${database}`;
    return url.toString();
  }

  async exists(database: string): Promise<boolean> {
    return this.run(async (c) => (await c.query('select 1 from pg_database where datname = $1', [database])).rowCount === 1);
  }

  /** Creates `database` (template0, UTF8, C collation); its URL. */
  async create(database: string): Promise<string> {
    await this.run((c) => c.query(`create database "${database}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`));
    return this.urlOf(database);
  }

  /** Drops it, ending the sessions still connected (a killed server's). */
  async drop(database: string): Promise<void> {
    await this.run((c) => dropDatabase(c, database));
  }
}

export interface SpecDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A database of one spec's or test's own, for servers that share one (several servers). Named like
 * the store suites' databases (sb_test_…), so a run that died before dropping it leaves nothing
 * test-all does not clean.
 */
export async function createSpecDatabase(adminUrl: string, label = 'e2e'): Promise<SpecDatabase> {
  const admin = new PostgresAdmin(adminUrl);
  const name = `${TEST_DATABASE_PREFIX}${label}_${randomBytes(6).toString('hex')}`;
  const url = await admin.create(name);
  return { name, url, drop: () => admin.drop(name) };
}

/**
 * A fresh database on the PostgreSQL test server (SWITCHBOARD_TEST_DATABASE_URL) for a cluster of
 * server processes: testDatabaseFor names a database after a folder, so a fresh folder is a fresh
 * database (sb_test_…, dropped by test-all).
 */
export async function clusterTestDatabase(name: string): Promise<string> {
  if (!process.env[TEST_DATABASE_URL_ENV]) {
    throw new Error('the multi-node chaos tests run on PostgreSQL: set SWITCHBOARD_TEST_DATABASE_URL to a role that may create databases (scripts/test-postgres.mjs prints one)');
  }
  const folder = temporaryDataDir(`chaos-${name}`);
  const url = await testDatabaseFor(folder);
  removeDataDir(folder);
  return url!;
}
