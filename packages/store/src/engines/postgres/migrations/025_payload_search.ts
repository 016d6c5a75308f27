import { sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: `switchboard_payload_json(text)` reads a payload's JSON text as jsonb, for payload
 * conditions and the indexes on declared payload fields (docs/decisions/0019-payload-search.md).
 * jsonb cannot hold U+0000, which JSON text may carry as the escape \u0000 (PostgreSQL's text
 * cannot hold the character itself, so the store writes payloads as JSON text): such a payload is
 * read with the escape turned into U+FFFD, as the store does with NUL in any text it binds, instead
 * of failing the search, the index and with it every insert. Immutable, and simple enough for the
 * planner to inline, so a query's expression matches the index's.
 */
export function payloadSearchSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await sql`
        create or replace function switchboard_payload_json(p text) returns jsonb
        language sql immutable parallel safe as $fn$
          select case when strpos(p, ${sql.lit(String.raw`\u0000`)}) = 0 then p::jsonb else replace(p, ${sql.lit(String.raw`\u0000`)}, ${sql.lit(String.raw`\ufffd`)})::jsonb end
        $fn$`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await sql`drop function if exists switchboard_payload_json(text) cascade`.execute(db);
    },
  };
}
