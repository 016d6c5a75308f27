import { sql, type Kysely } from 'kysely';

/** The pick, in the parameters' names: expired leases first, then due rows, oldest first. */
export const CLAIMABLE_PICK = `
          with expired as (
            select delivery_id, lease_owner, true from deliveries
            where p_free and status = 'in_progress' and lease_expires_at < p_now
            order by lease_expires_at limit p_limit for update skip locked
          ),
          due as (
            select delivery_id, null::text, false from deliveries
            where p_free and status = 'pending' and next_attempt_at <= p_now
            order by next_attempt_at limit p_limit for update skip locked
          )
          select * from expired union all select * from due limit p_limit
`;

/**
 * Creates or replaces `claimable_deliveries` in `language`. PL/pgSQL (migration 012) wraps the
 * pick in `return query`; `use_column` because the pick's column names are also the names of the
 * function's result columns.
 */
export function claimableDeliveriesFunction(language: 'sql' | 'plpgsql') {
  const body = language === 'sql' ? CLAIMABLE_PICK : `#variable_conflict use_column\nbegin\n  return query ${CLAIMABLE_PICK};\nend`;
  return sql`
    create or replace function claimable_deliveries(p_now text, p_limit integer, p_free boolean)
    returns table (delivery_id text, previous_owner text, reclaimed boolean)
    language ${sql.raw(language)} volatile
    rows 64
    set enable_bitmapscan = off
    as $$ ${sql.raw(body)} $$`;
}

/**
 * PostgreSQL's claim picks its rows through `claimable_deliveries`, a function planned with bitmap
 * scans off, so the pick is always an ordered walk of the partial index that stops after `p_limit`
 * rows. Planned inline, the pick followed the table's statistics, and those lag exactly when a
 * claim matters most: right after a backlog became due (retries whose backoff ended, a resume),
 * the histogram still says few rows are due, and the planner read every due row through a bitmap
 * and sorted them all for each claim of 64, far slower than the ordered walk once autovacuum had
 * analyzed the table (docs/performance-notes.md). The ordered walk is the right plan at any
 * size: its index condition is a range on the index's only column.
 *
 * `p_free` is false while the reset lock is held: nothing is picked or locked.
 */
export function claimPlanSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await claimableDeliveriesFunction('sql').execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await sql`drop function claimable_deliveries(text, integer, boolean)`.execute(db);
    },
  };
}
