/**
 * A multi-row INSERT written straight to SQL text, without Kysely's builder. Under publish load
 * the builder and its compiler (an immutable node per value, then a visitor pass) took more of the
 * main thread than SQLite's execution of the same inserts (docs/performance-notes.md). The text is
 * the one Kysely writes: the columns are every key some row gives a value, in first-seen order,
 * and a row that leaves one out (or gives `undefined`) inserts NULL there, as Kysely's SQLite
 * compiler does.
 */
import { CompiledQuery } from 'kysely';

/** SQLite's bound-parameter limit (SQLITE_MAX_VARIABLE_NUMBER in better-sqlite3's build). */
const MAX_PARAMETERS = 32_766;

const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/** A value that binds as it is; anything else (an expression, a boolean, a date) is left to Kysely. */
function bindsAsIs(value: unknown): boolean {
  const type = typeof value;
  return value === null || value === undefined || type === 'string' || type === 'number' || type === 'bigint' || value instanceof Uint8Array;
}

/**
 * The statement inserting `rows` into `table` and returning `returning` of each, or undefined when
 * a value is not plain or the rows need more parameters than one statement takes.
 */
export function valuesInsert<R>(table: string, rows: readonly object[], returning: readonly string[] = []): CompiledQuery<R> | undefined {
  if (rows.length === 0) return undefined;
  const columns = new Map<string, number>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (!bindsAsIs(value)) return undefined;
      if (value !== undefined && !columns.has(key)) columns.set(key, columns.size);
    }
  }
  if (columns.size === 0 || columns.size * rows.length > MAX_PARAMETERS) return undefined;
  const names = [...columns.keys()];
  const parameters: unknown[] = new Array(names.length * rows.length);
  let at = 0;
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    for (const name of names) parameters[at++] = values[name] ?? null;
  }
  const tuple = `(${names.map(() => '?').join(', ')})`;
  let text = `insert into ${quoted(table)} (${names.map(quoted).join(', ')}) values ${new Array(rows.length).fill(tuple).join(', ')}`;
  if (returning.length > 0) text += ` returning ${returning.map(quoted).join(', ')}`;
  return CompiledQuery.raw(text, parameters) as CompiledQuery<R>;
}
