/**
 * Rows into one table: in one statement where the engine can (StoreEngine.insertAsOne: PostgreSQL's
 * JSON insert, SQLite's VALUES text written directly), else through Kysely's builder in VALUES
 * lists of at most 900 bound values (SQLite's old limit was 999), for rows the engine declines.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema';
import type { StoreEngine } from '../engines/engine';

const MAX_BUILDER_VALUES = 900;

export async function insertRows<R = never>(
  engine: StoreEngine,
  trx: Kysely<Database>,
  table: keyof Database & string,
  rows: readonly object[],
  options: { returning?: readonly string[]; withNext?: boolean } = {},
): Promise<R[]> {
  if (rows.length === 0) return [];
  const returning = options.returning ?? [];
  const asOne = await engine.insertAsOne<R>(trx, table, rows, { returning, withNext: options.withNext ?? false });
  if (asOne) return asOne;
  const perStatement = Math.max(1, Math.floor(MAX_BUILDER_VALUES / Object.keys(rows[0]!).length));
  const inserted: R[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const insert = trx.insertInto(table).values(rows.slice(i, i + perStatement) as never);
    if (returning.length === 0) await insert.execute();
    else inserted.push(...((await insert.returning(returning as never).execute()) as R[]));
  }
  return inserted;
}
