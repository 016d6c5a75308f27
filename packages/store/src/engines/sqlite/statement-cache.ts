import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct SQL texts kept prepared; the store's queries are a few hundred shapes at most. */
const DEFAULT_CAPACITY = 512;

/**
 * Kysely's SQLite driver prepares every statement it runs; preparing is a large share of a small
 * query's cost. This hands it an already-prepared statement for SQL text it has seen (least
 * recently used out first). A statement still being iterated (a streamed query) is busy and cannot
 * be re-run, so such a caller gets a fresh one.
 */
export function withStatementCache(raw: BetterSqlite3.Database, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  const prepared = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql) {
      const cached = prepared.get(sql);
      if (cached && !cached.busy) {
        prepared.delete(sql);
        prepared.set(sql, cached);
        return cached;
      }
      const statement = raw.prepare(sql);
      if (!cached) {
        prepared.set(sql, statement);
        if (prepared.size > capacity) prepared.delete(prepared.keys().next().value!);
      }
      return statement;
    },
    close() {
      prepared.clear();
      raw.close();
    },
  };
}
