import type { Kysely } from 'kysely';
import { claimableDeliveriesFunction } from './010_claim_plan';

/**
 * `claimable_deliveries` in PL/pgSQL, with the same pick. A SQL-language function that cannot be
 * inlined (its SET clause prevents that) is planned again inside every statement that calls it:
 * more than half of each claim's time in PostgreSQL on an idle table (docs/performance-notes.md),
 * and every dispatcher
 * claims on each wake-up and poll. PL/pgSQL keeps the pick's plan for the connection's life (made
 * again when the table's statistics change); its first five calls are planned with the call's
 * values, and it moves to a generic plan only when that is not estimated to cost much more than
 * those did, so a large backlog keeps getting a plan for its `p_limit` rows.
 */
export function claimPlanCachedSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await claimableDeliveriesFunction('plpgsql').execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await claimableDeliveriesFunction('sql').execute(db);
    },
  };
}
