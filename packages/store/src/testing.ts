/**
 * For tests and benchmarks only: the Kysely instance behind a store, to arrange states and count
 * rows that no repository method exposes. Product code goes through the repositories (lint forbids
 * importing this from the runtime's and the server's sources).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Engine } from './engines/engine';
import type { Database } from './schema';
import type { NewLogRecord } from './repositories/logs';
import { Store, type StoreOptions } from './store';
import { SQLITE_FILE_NAME } from './engines/sqlite/open-sqlite';

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
  const databaseUrl = await prepareTestStore(dataDir);
  return Store.open(databaseUrl ? { ...options, databaseUrl } : { ...options, dataDir });
}

/**
 * Readies the store that stands for `dataDir` on the test engine, its migrations done: on
 * PostgreSQL, its database (see testDatabaseFor), whose URL this returns; on SQLite, a copy of a
 * migrated store file put in the folder, unless it holds one already. Running every migration on
 * each test's fresh store took about 0.3 s on SQLite and 0.8 s on PostgreSQL, hundreds of times
 * per suite.
 */
export async function prepareTestStore(dataDir: string): Promise<string | undefined> {
  const databaseUrl = await testDatabaseFor(dataDir);
  if (databaseUrl) return databaseUrl;
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  if (!fs.existsSync(file)) {
    const template = await migratedSqliteFile();
    fs.mkdirSync(dataDir, { recursive: true });
    fs.copyFileSync(template, file, fs.constants.COPYFILE_EXCL);
  }
  return undefined;
}

let sqliteTemplate: Promise<string> | undefined;

/** A store file the migrations ran on, made once per process (closed, so its WAL is checkpointed into it). */
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-template-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const store = await Store.open({ dataDir: dir });
    await store.close();
    return path.join(dir, SQLITE_FILE_NAME);
  })();
  return sqliteTemplate;
}

/**
 * On PostgreSQL (see TEST_DATABASE_URL_ENV), the URL of the database that stands for `dataDir`,
 * created on first use; undefined on SQLite. Created as a copy of a database the migrations already
 * ran on (see migratedTemplate), so a store opened on it finds its schema in place; `empty` for a
 * test that runs the migrations itself (one that starts from an older schema).
 */
export async function testDatabaseFor(dataDir: string, { empty = false }: { empty?: boolean } = {}): Promise<string | undefined> {
  const admin = process.env[TEST_DATABASE_URL_ENV];
  if (!admin) return undefined;
  const name = TEST_DATABASE_PREFIX + createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24);
  const template = empty ? 'template0' : await migratedTemplate(admin);
  await withClient(admin, async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await createDatabase(client, name, template);
        return;
      } catch (err) {
        // 55006: the template's last session (the store that migrated it) is still ending.
        if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
        await sleep(100);
      }
    }
  });
  return urlOf(admin, name);
}

/** Creates `name` as a copy of `template`; false when it exists already (reopened, or another open won the race). */
async function createDatabase(client: pg.Client, name: string, template: string): Promise<boolean> {
  try {
    // C collation: text order is byte order, as on SQLite (ids and timestamps in keyset pages).
    await client.query(`create database "${name}" template "${template}" encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
    return true;
  } catch (err) {
    // duplicate_database, or a unique violation when two creates race.
    if (['42P04', '23505'].includes((err as { code?: string }).code ?? '')) return false;
    throw err;
  }
}

function urlOf(admin: string, database: string): string {
  const url = new URL(admin);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let migratedTemplateName: Promise<string> | undefined;

/**
 * A database the migrations ran on, to copy for each test database: opening a store on a fresh
 * one ran every migration, about 0.8 s each time, hundreds of times per PostgreSQL suite. Named
 * after the migrations' and engines' sources, so a changed migration gets a template of its own;
 * the first process to create it migrates it, and the others (test workers) wait for the comment
 * that says it is done. Named sb_test_…, so test-all drops it with the rest.
 */
function migratedTemplate(admin: string): Promise<string> {
  migratedTemplateName ??= createMigratedTemplate(admin).catch((err: unknown) => {
    migratedTemplateName = undefined;
    throw err;
  });
  return migratedTemplateName;
}

const MIGRATED = 'migrated';

async function createMigratedTemplate(admin: string): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}template_${schemaSourcesHash()}`;
  const created = await withClient(admin, (client) => createDatabase(client, name, 'template0'));
  if (created) {
    const store = await Store.open({ databaseUrl: urlOf(admin, name) });
    await store.close();
    await withClient(admin, (client) => client.query(`comment on database "${name}" is '${MIGRATED}'`));
    return name;
  }
  const deadline = Date.now() + 120_000;
  await withClient(admin, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ note: string | null }>(`select shobj_description(oid, 'pg_database') as note from pg_database where datname = $1`, [name]);
      if (rows[0]?.note === MIGRATED) return;
      if (Date.now() > deadline) throw new Error(`test database template ${name} was not migrated within 120 s (a test process that died while migrating it?): drop it and run again`);
      await sleep(100);
    }
  });
  return name;
}

/** The migrations' and the engines' sources (the engines add migration steps of their own). */
function schemaSourcesHash(): string {
  const hash = createHash('sha256');
  const src = path.dirname(fileURLToPath(import.meta.url));
  for (const dir of ['migrations', 'engines']) {
    for (const file of (fs.readdirSync(path.join(src, dir), { recursive: true }) as string[]).sort()) {
      const full = path.join(src, dir, file);
      if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
    }
  }
  return hash.digest('hex').slice(0, 16);
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
