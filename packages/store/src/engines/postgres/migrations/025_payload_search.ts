import { sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: `switchboard_payload_json(text)` reads a payload's JSON text as jsonb, for payload
 * conditions and the indexes on declared payload fields (docs/decisions/0019-payload-search.md).
 *
 * A plain `payload::jsonb` fails on JSON text that jsonb cannot hold: the escape \u0000 (PostgreSQL
 * text cannot hold NUL itself, but JSON text may carry the escape) and a lone surrogate escape such
 * as \udc00. One such payload would fail every search that reads it, and, once a declared index
 * covers the events table, the insert of every such event. Text with no "\u" at all (nearly every
 * payload) is cast as it is; any other goes through `switchboard_payload_json_lenient`, which turns
 * \u0000 into \ufffd (as the store does with NUL in any text it binds) and reads what still fails as
 * null (no condition holds on it). The outer function is plain SQL, which the planner inlines, so a
 * query's expression matches the index's; both are immutable, as an index expression must be.
 */
export function payloadSearchSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await sql`
        create or replace function switchboard_payload_json_lenient(p text) returns jsonb
        language plpgsql immutable parallel safe as $fn$
        begin
          return replace(p, ${sql.lit(String.raw`\u0000`)}, ${sql.lit(String.raw`\ufffd`)})::jsonb;
        exception when others then
          return null;
        end
        $fn$`.execute(db);
      await sql`
        create or replace function switchboard_payload_json(p text) returns jsonb
        language sql immutable parallel safe as $fn$
          select case when strpos(p, ${sql.lit('\\u')}) = 0 then p::jsonb else switchboard_payload_json_lenient(p) end
        $fn$`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await sql`drop function if exists switchboard_payload_json(text) cascade`.execute(db);
      await sql`drop function if exists switchboard_payload_json_lenient(text)`.execute(db);
    },
  };
}
