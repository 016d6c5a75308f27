/**
 * Payload conditions on SQLite: `json_extract(payload, '$.a.b')`, the expression an index on a
 * declared field holds. json_extract gives a JSON string as text, a number as integer or real and
 * true/false as 1/0, so `json_type` tells a string "5" from 5 and true from 1; it runs only on rows
 * the value already matched (the index seek, or the scan), so an index still serves the seek.
 */
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { PayloadCondition, PayloadScalar } from '@switchboard/contract';
import type { Database } from '../../schema';

/** `$.a.b` for `a.b`: the path is an identifier list (contract syntax), so it needs no quoting. */
const jsonPath = (path: string) => sql.lit(`$.${path}`);

const valueAt = (column: string, path: string): RawBuilder<unknown> => sql`json_extract(${sql.ref(column)}, ${jsonPath(path)})`;
const typeAt = (column: string, path: string): RawBuilder<string> => sql<string>`json_type(${sql.ref(column)}, ${jsonPath(path)})`;

/** What json_extract gives for `value` (better-sqlite3 binds no booleans). */
const asExtracted = (value: PayloadScalar): string | number => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

function typeCheck(column: string, path: string, value: PayloadScalar): RawBuilder<SqlBool> {
  const type = typeAt(column, path);
  if (typeof value === 'string') return sql<SqlBool>`${type} = 'text'`;
  if (typeof value === 'number') return sql<SqlBool>`${type} in ('integer', 'real')`;
  return value ? sql<SqlBool>`${type} = 'true'` : sql<SqlBool>`${type} = 'false'`;
}

export function sqlitePayloadCondition(column: string, condition: PayloadCondition): Expression<SqlBool> {
  const { path } = condition;
  const value = valueAt(column, path);
  switch (condition.op) {
    case 'eq': {
      const v = condition.value as PayloadScalar;
      return sql<SqlBool>`(${value} = ${asExtracted(v)} and ${typeCheck(column, path, v)})`;
    }
    case 'in': {
      const values = condition.value as PayloadScalar[];
      // The IN list lets the index seek each value; the typed checks then drop 1 matched by true.
      const typed = values.map((v) => sql<SqlBool>`(${value} = ${asExtracted(v)} and ${typeCheck(column, path, v)})`);
      return sql<SqlBool>`(${value} in (${sql.join(values.map(asExtracted))}) and (${sql.join(typed, sql` or `)}))`;
    }
    case 'prefix': {
      const prefix = condition.value as string;
      // substr and length count characters on text, so this is an exact prefix test.
      return sql<SqlBool>`(${typeAt(column, path)} = 'text' and substr(${value}, 1, length(${prefix})) = ${prefix})`;
    }
    case 'exists':
      return sql<SqlBool>`(${value} is not null)`;
  }
}

export async function ensureSqlitePayloadIndex(db: Kysely<Database>, name: string, path: string): Promise<boolean> {
  const existing = await db.selectFrom('sqlite_master' as never).select(sql<string>`name`.as('name')).where(sql<SqlBool>`type = 'index' and name = ${name}`).executeTakeFirst();
  if (existing) return false;
  const value = sql`json_extract(payload, ${jsonPath(path)})`;
  await sql`create index if not exists ${sql.id(name)} on events (${value}, created_at, seq) where ${value} is not null`.execute(db);
  return true;
}
