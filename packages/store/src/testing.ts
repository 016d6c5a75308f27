/**
 * For tests and benchmarks only: the Kysely instance behind a store, to arrange states and count
 * rows that no repository method exposes. Product code goes through the repositories (lint forbids
 * importing this from the runtime's and the server's sources).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Engine } from './engines/engine';
import type { Database } from './schema';
import type { NewLogRecord } from './repositories/logs';
import { Store, type StoreOptions } from './store';

/**
 * An admin URL of a PostgreSQL server (a role that may create databases). When set, tests open
 * their stores on PostgreSQL (see openTestStore).
 */
/** A seeded random source (an LCG) for model-based tests: one seed, the same cases every run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export const TEST_DATABASE_URL_ENV = 'SWITCHBOARD_TEST_DATABASE_URL';

export function testEngine(): Engine {
  return process.env[TEST_DATABASE_URL_ENV] ? 'postgres' : 'sqlite';
}

/** The test databases' name prefix (test-all drops them after the PostgreSQL run). */
export const TEST_DATABASE_PREFIX = 'sb_test_';

/**
 * A store for a test: SQLite in `dataDir`, or on PostgreSQL (see TEST_DATABASE_URL_ENV) a database
 * named after `dataDir`, created on first open, so that reopening the same folder reopens the
 * same data, as it does on SQLite.
 */
export async function openTestStore(dataDir: string, options: Omit<StoreOptions, 'dataDir' | 'databaseUrl'> = {}): Promise<Store> {
  const databaseUrl = await testDatabaseFor(dataDir);
  return Store.open(databaseUrl ? { ...options, databaseUrl } : { ...options, dataDir });
}

/**
 * On PostgreSQL (see TEST_DATABASE_URL_ENV), the URL of the database that stands for `dataDir`,
 * created on first use; undefined on SQLite.
 */
export async function testDatabaseFor(dataDir: string): Promise<string | undefined> {
  const admin = process.env[TEST_DATABASE_URL_ENV];
  if (!admin) return undefined;
  const name = TEST_DATABASE_PREFIX + createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    // C collation: text order is byte order, as on SQLite (ids and timestamps in keyset pages).
    await client.query(`create database "${name}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  } catch (err) {
    // duplicate_database (reopening), or a unique violation when two opens race to create it.
    if (!['42P04', '23505'].includes((err as { code?: string }).code ?? '')) throw err;
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export function databaseOf(store: Store): Kysely<Database> {
  return store['db'];
}

/** The Kysely handle of a `store.transaction`'s transaction, for raw rows a test or benchmark writes in it. */
export { executorOf as databaseOfTransaction } from './store-tx';

type CountedTable = 'events' | 'deliveries' | 'dead_letters' | 'runs' | 'turns' | 'conversations' | 'mailbox_items' | 'ingress_queue' | 'logs';

/** Rows of a table, optionally only those with `status` equal to the given value. */
export async function countRows(store: Store, table: CountedTable, status?: string): Promise<number> {
  let q = databaseOf(store).selectFrom(table as 'events').select((eb) => eb.fn.countAll<number>().as('n'));
  if (status !== undefined) q = q.where('status' as never, '=', status as never);
  const r = await q.executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Columns moved by every authenticated request or server heartbeat, not by the calls a snapshot watches. */
const TOUCH_COLUMNS: Record<string, readonly string[]> = {
  tokens: ['last_used_at'],
  users: ['last_seen_at'],
  servers: ['last_seen_at', 'in_flight'],
};

/** Tables of the audit trail: a refused call is recorded there, and only there. */
const AUDIT_TABLE = /^audit/;

export type TableSnapshot = Record<string, string[]>;

/**
 * Every row of every table (rows as sorted JSON), for "this call changed nothing" checks. Leaves
 * out the touch columns above, the audit trail's tables (unless `includeAudit`), and any table
 * named in `without`.
 */
export async function snapshotTables(store: Store, options: { without?: readonly string[]; includeAudit?: boolean } = {}): Promise<TableSnapshot> {
  const db = databaseOf(store);
  const tableList =
    store.engine === 'postgres'
      ? sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_name not like 'kysely_%' order by 1`
      : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name`;
  const tables = (await tableList.execute(db)).rows.map((r) => r.name);
  const out: TableSnapshot = {};
  for (const table of tables) {
    if (options.without?.includes(table)) continue;
    if (!options.includeAudit && AUDIT_TABLE.test(table)) continue;
    const ignored = TOUCH_COLUMNS[table] ?? [];
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    out[table] = rows
      .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !ignored.includes(column)))))
      .sort();
  }
  return out;
}

/** The tables whose rows differ between two snapshots, each with the rows only one side has. */
export function snapshotDifferences(before: TableSnapshot, after: TableSnapshot): { table: string; removed: string[]; added: string[] }[] {
  const differences: { table: string; removed: string[]; added: string[] }[] = [];
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[table] ?? [];
    const is = after[table] ?? [];
    const removed = was.filter((row) => !is.includes(row));
    const added = is.filter((row) => !was.includes(row));
    if (removed.length || added.length || was.length !== is.length) differences.push({ table, removed, added });
  }
  return differences;
}

/**
 * From now on, a transaction that inserts an event whose payload contains `marker` fails at its
 * COMMIT, after all its statements ran (a deferred foreign key): what a commit whose connection
 * died looks like to its caller, on either engine.
 */
export async function failCommitsWritingEvent(store: Store, marker: string): Promise<void> {
  if (!/^[a-z0-9-]+$/.test(marker)) throw new Error(`marker must be [a-z0-9-]+: ${marker}`);
  const db = databaseOf(store);
  await sql`create table commit_refusals_parent (id text primary key)`.execute(db);
  await sql`create table commit_refusals (event_id text references commit_refusals_parent (id) deferrable initially deferred)`.execute(db);
  const when = sql.raw(`new.payload like '%${marker}%'`);
  if (store.engine === 'postgres') {
    await sql`create function commit_refusal() returns trigger language plpgsql as $$ begin insert into commit_refusals values (new.event_id); return null; end $$`.execute(db);
    await sql`create trigger commit_refusals_on_events after insert on events for each row when (${when}) execute function commit_refusal()`.execute(db);
  } else {
    await sql`create trigger commit_refusals_on_events after insert on events when ${when} begin insert into commit_refusals values (new.event_id); end`.execute(db);
  }
}

export { sql } from 'kysely';
export { expectedIncidentGroups, type ReferenceLog } from './incident-reference';

let warnRecords = 0;
/** A warn record of component `svc` with error code E1 at `ts`, each with ids of its own: an incident occurrence for rollup tests. */
export function warnLogRecord(ts: string, fields: Partial<NewLogRecord> = {}): NewLogRecord {
  const n = ++warnRecords;
  return {
    log_id: `log-${n}`,
    ts,
    level: 'warn',
    level_rank: 2,
    component: 'svc',
    error_code: 'E1',
    message: 'warn',
    is_mcp: 0,
    event_id: null,
    run_id: `run-${n}`,
    delivery_id: null,
    dead_letter_id: null,
    entity_id: null,
    session_id: null,
    ...fields,
  };
}
