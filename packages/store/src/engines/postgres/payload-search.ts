/**
 * Payload conditions on PostgreSQL. Payloads are JSON text; `switchboard_payload_json` (migration
 * 025) reads it as jsonb, and `#> '{a,b}'` takes the value at a path: the expression an index on a
 * declared field holds. Equality compares jsonb with jsonb, so it is typed ("5" is not 5, 5 is
 * 5.0) and the index serves it; prefix reads the text form (`#>>`) of a string.
 */
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { PayloadCondition, PayloadScalar } from '@switchboard/contract';
import type { Database } from '../../schema';

/** `'{a,b}'` for `a.b`: the path is an identifier list (contract syntax), so it needs no quoting. */
const pathArray = (path: string) => sql`${sql.lit(`{${path.split('.').join(',')}}`)}::text[]`;

const jsonOf = (column: RawBuilder<unknown>) => sql`switchboard_payload_json(${column})`;
const valueAt = (column: string, path: string): RawBuilder<unknown> => sql`(${jsonOf(sql.ref(column))} #> ${pathArray(path)})`;
/** A lone surrogate, which JSON.stringify writes as an escape jsonb refuses; node-postgres sends it as U+FFFD anyway. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const asJsonb = (value: PayloadScalar) => sql`${JSON.stringify(typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : value)}::jsonb`;

export function postgresPayloadCondition(column: string, condition: PayloadCondition): Expression<SqlBool> {
  const { path } = condition;
  const value = valueAt(column, path);
  switch (condition.op) {
    case 'eq':
      return sql<SqlBool>`(${value} = ${asJsonb(condition.value as PayloadScalar)})`;
    case 'in':
      return sql<SqlBool>`(${value} in (${sql.join((condition.value as PayloadScalar[]).map(asJsonb))}))`;
    case 'prefix':
      return sql<SqlBool>`(jsonb_typeof(${value}) = 'string' and starts_with(${jsonOf(sql.ref(column))} #>> ${pathArray(path)}, ${condition.value as string}))`;
    case 'exists':
      return sql<SqlBool>`(jsonb_typeof(${value}) <> 'null')`;
  }
}

/**
 * Built concurrently (outside any transaction, as boot runs it): other servers on the same database
 * keep writing events while it builds. A build that failed leaves an invalid index behind, which
 * is dropped and built again.
 */
export async function ensurePostgresPayloadIndex(db: Kysely<Database>, name: string, path: string): Promise<boolean> {
  const existing = await sql<{ valid: boolean }>`
    select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`.execute(db);
  if (existing.rows[0]?.valid) return false;
  if (existing.rows.length > 0) await sql`drop index concurrently if exists ${sql.id(name)}`.execute(db);
  const value = sql`(switchboard_payload_json(payload) #> ${pathArray(path)})`;
  try {
    await sql`create index concurrently if not exists ${sql.id(name)} on events (${value}, created_at, seq) where ${value} is not null`.execute(db);
    return true;
  } catch (err) {
    // Two servers booting the same bundle may create it at once: the one that lost finds it made.
    const code = (err as { code?: unknown }).code;
    if (code === '23505' || code === '42P07') return false;
    throw err;
  }
}
