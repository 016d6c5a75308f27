/**
 * Reset owner 3, cleanup: removes the run-scoped records in one transaction (all of them or, on
 * any failure, none) and puts bundle-declared agents back to idle. Tokens, idempotency records,
 * the reset audit trail and the bundle are preserved (see run-scoped-records.ts).
 */
import type { ResetContext } from './reset-context';
import { KEPT_RECORDS, REMOVED_TABLES, countAgentsToReset, deleteRunScoped, resetAgents, snapshotTable, type RemovalCounts } from './run-scoped-records';

export interface CleanupPreview {
  [key: string]: unknown;
  would_delete: RemovalCounts;
  would_reset: { agents: number };
  would_keep: readonly string[];
}

export interface CleanupOutcome {
  [key: string]: unknown;
  deleted: RemovalCounts;
  reset: { agents: number };
  kept: readonly string[];
}

export async function previewCleanup(ctx: ResetContext): Promise<CleanupPreview> {
  const would_delete = {} as RemovalCounts;
  for (const table of REMOVED_TABLES) would_delete[table] = (await snapshotTable(ctx.store.db, table)).count;
  return { would_delete, would_reset: { agents: await countAgentsToReset(ctx.store.db) }, would_keep: KEPT_RECORDS };
}

export async function cleanup(ctx: ResetContext): Promise<CleanupOutcome> {
  return ctx.store.transaction(async (trx) => {
    const deleted = await deleteRunScoped(trx);
    const agents = await resetAgents(trx, ctx.clock.now().toISOString());
    return { deleted, reset: { agents }, kept: KEPT_RECORDS };
  });
}
