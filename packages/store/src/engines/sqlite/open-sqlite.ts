import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../schema';
import { withStatementCache } from './statement-cache';

export const SQLITE_FILE_NAME = 'switchboard.db';
/**
 * How long a statement waits for another connection's lock before it fails busy. The wait blocks
 * the thread that runs the statement (the server's main thread for writes).
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the embedded store. WAL with synchronous=FULL set explicitly: better-sqlite3 leaves WAL at
 * NORMAL, which can lose the last transactions on power loss, and an acknowledged event must not be lost.
 */
export function openSqlite(dataDir: string, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): { db: Kysely<Database>; raw: BetterSqlite3.Database; file: string } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, SQLITE_FILE_NAME);
  const raw = new BetterSqlite3(file);
  // Free pages go back to the file system in steps after a retention pass (ADR 0018). Takes effect
  // only on a file without tables yet: an older file keeps its mode until a one-time VACUUM.
  raw.pragma('auto_vacuum = INCREMENTAL');
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  raw.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  raw.pragma('cache_size = -65536');
  raw.pragma('temp_store = MEMORY');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  return { db, raw, file };
}

/**
 * Pages of the SQLite page cache a bulk reader may hold (negative: KiB). A walk over a whole table
 * touches every page once, so a large cache buys it nothing and fills to its limit.
 */
const BULK_READER_CACHE_KIB = 8192;
/**
 * The page cache of a reader thread's connection: half the main connection's, since a server runs
 * several and they share the pages a console reads over and over.
 */
const THREAD_READER_CACHE_KIB = 32768;

/**
 * A second connection to an open store's file for reads that walk a whole table (exports): its
 * page cache stays small, so a walk does not fill the main connection's 64 MB cache. WAL lets it
 * read while the main connection writes; `query_only` refuses any write, which could otherwise
 * wait for the main connection's lock on this same thread.
 */
export function openSqliteBulkReader(file: string): { db: Kysely<Database>; raw: BetterSqlite3.Database } {
  return openSqliteReadOnly(file, BULK_READER_CACHE_KIB);
}

/**
 * A connection for a reader thread (another thread of the process that holds the store): list
 * pages read there run beside the main thread's work. WAL gives each read the last committed
 * state, so a write acknowledged on the main connection is in the next page read here.
 */
export function openSqliteThreadReader(file: string): { db: Kysely<Database>; raw: BetterSqlite3.Database } {
  return openSqliteReadOnly(file, THREAD_READER_CACHE_KIB);
}

function openSqliteReadOnly(file: string, cacheKib: number): { db: Kysely<Database>; raw: BetterSqlite3.Database } {
  const raw = new BetterSqlite3(file, { fileMustExist: true });
  raw.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
  raw.pragma(`cache_size = -${cacheKib}`);
  raw.pragma('query_only = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }) });
  return { db, raw };
}
