import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { boundLimitsOf, limitValuesOf, parametersBesideLimits, textWithLimits, type BoundLimits } from './bound-limits';

/** Distinct SQL texts kept prepared; the store's queries are a few hundred shapes at most. */
const DEFAULT_CAPACITY = 512;
/**
 * Texts kept per statement whose LIMIT or OFFSET is bound, one per set of values: a call site uses
 * one or a few (a page size, and one more row to know whether a next page exists).
 */
const LIMIT_VALUES_KEPT = 8;

type CachedStatement = SqliteStatement & { readonly busy: boolean };

const SCHEMA_CHANGE = /^\s*(create|alter|drop)\s/i;

/**
 * Kysely's SQLite driver prepares every statement it runs; preparing is a large share of a small
 * query's cost. This hands it an already-prepared statement for SQL text it has seen (least
 * recently used out first). A statement still being iterated (a streamed query) is busy and cannot
 * be re-run, so such a caller gets a fresh one. Statements that return rows return them through
 * ArrayRowStatement; statements whose LIMIT or OFFSET is bound run with the values written into
 * the text (LimitsWrittenStatement).
 */
export function withStatementCache(raw: BetterSqlite3.Database, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  const prepared = new Map<string, CachedStatement>();
  return {
    prepare(sql) {
      // A schema change (migrations) may give a kept `select *` other columns or other names.
      if (SCHEMA_CHANGE.test(sql)) prepared.clear();
      const cached = prepared.get(sql);
      if (cached && !cached.busy) {
        prepared.delete(sql);
        prepared.set(sql, cached);
        return cached;
      }
      const native = raw.prepare(sql);
      const limits = boundLimitsOf(sql);
      const statement = limits ? new LimitsWrittenStatement(raw, sql, limits, native) : rowsAsObjects(native);
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

function rowsAsObjects(native: BetterSqlite3.Statement): CachedStatement {
  return native.reader ? new ArrayRowStatement(native) : native;
}

/**
 * A statement whose LIMIT or OFFSET is bound, run as the text with each call's values written in
 * (bound-limits.ts: SQLite prepares a statement again whenever its LIMIT parameter is bound). The
 * texts are kept per set of values, the most recently used LIMIT_VALUES_KEPT; values that are not
 * integers run the statement as written, bound.
 */
class LimitsWrittenStatement implements SqliteStatement {
  readonly reader: boolean;
  private readonly asWritten: CachedStatement;
  private readonly byValues = new Map<string, CachedStatement>();

  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly sql: string,
    private readonly limits: BoundLimits,
    native: BetterSqlite3.Statement,
  ) {
    this.reader = native.reader;
    this.asWritten = rowsAsObjects(native);
  }

  /** Never busy as a whole: a text being iterated is replaced by a fresh one for the next call. */
  readonly busy = false;

  all(parameters: readonly unknown[]): unknown[] {
    const [statement, rest] = this.statementFor(parameters);
    return statement.all(rest);
  }

  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    const [statement, rest] = this.statementFor(parameters);
    return statement.iterate(rest);
  }

  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    const [statement, rest] = this.statementFor(parameters);
    return statement.run(rest);
  }

  private statementFor(parameters: readonly unknown[]): [CachedStatement, readonly unknown[]] {
    const values = limitValuesOf(this.limits, parameters);
    if (!values) return [this.asWritten.busy ? rowsAsObjects(this.raw.prepare(this.sql)) : this.asWritten, parameters];
    const rest = parametersBesideLimits(this.limits, parameters);
    const key = values.join(',');
    const kept = this.byValues.get(key);
    if (kept && !kept.busy) {
      this.byValues.delete(key);
      this.byValues.set(key, kept);
      return [kept, rest];
    }
    const statement = rowsAsObjects(this.raw.prepare(textWithLimits(this.sql, this.limits, values)));
    if (!kept) {
      this.byValues.set(key, statement);
      if (this.byValues.size > LIMIT_VALUES_KEPT) this.byValues.delete(this.byValues.keys().next().value!);
    }
    return [statement, rest];
  }
}

/**
 * A statement that returns rows, its rows made into objects here from the arrays better-sqlite3
 * returns in raw mode. better-sqlite3 builds a row object through V8's C++ API one property at a
 * time; built here, in column order, every row of a statement shares one shape, and a 50-row
 * page's two queries cost about a third less (docs/performance-notes.md). Same objects: a
 * property per column name in column order, a repeated name holding its last column's value.
 */
class ArrayRowStatement implements SqliteStatement {
  readonly reader = true;
  private names: string[];

  constructor(private readonly native: BetterSqlite3.Statement) {
    this.names = columnNamesOf(native);
    native.raw(true);
  }

  get busy(): boolean {
    return this.native.busy;
  }

  all(parameters: readonly unknown[]): unknown[] {
    const rows = this.native.all(parameters) as unknown[][];
    const objects = new Array<Record<string, unknown>>(rows.length);
    for (let i = 0; i < rows.length; i++) objects[i] = this.objectOf(rows[i]!);
    return objects;
  }

  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    const rows = this.native.iterate(parameters) as IterableIterator<unknown[]>;
    const objectOf = (row: unknown[]) => this.objectOf(row);
    return (function* () {
      for (const row of rows) yield objectOf(row);
    })();
  }

  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.native.run(parameters);
  }

  private objectOf(row: unknown[]): Record<string, unknown> {
    // After a schema change made on another connection, SQLite prepares the statement again and
    // `select *` may have more or fewer columns.
    if (row.length !== this.names.length) this.names = columnNamesOf(this.native);
    const names = this.names;
    const object: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) object[names[i]!] = row[i];
    return object;
  }
}

function columnNamesOf(statement: BetterSqlite3.Statement): string[] {
  return statement.columns().map((c) => c.name);
}
