import { sql, type Kysely } from 'kysely';

/**
 * Claims walk only claimable rows: finished deliveries stay out of these indexes' way, so the index
 * a claim reads stays small however long the table grows (and vacuum has less to do). SQLite keeps
 * its (status, …) indexes: it cannot match a partial index to a bound status parameter.
 */
export function claimIndexesSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('deliveries_due').on('deliveries').column('next_attempt_at').where(sql.ref('status'), '=', 'pending').execute();
      await db.schema.createIndex('deliveries_leased').on('deliveries').column('lease_expires_at').where(sql.ref('status'), '=', 'in_progress').execute();
      await db.schema.dropIndex('deliveries_claim').execute();
      await db.schema.dropIndex('deliveries_lease').execute();
    },
  };
}
