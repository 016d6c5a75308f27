/**
 * Reset owner 3, cleanup: removes the run-scoped records in one transaction (all of them or, on
 * any failure, none) and puts bundle-declared agents back to idle. Tokens, idempotency records,
 * the reset audit trail and the bundle are preserved (the store's ResetRepository says which).
 */
import type { ResetContext } from './reset-context';
import { KEPT_RECORDS, REMOVED_TABLES, type RemovalCounts } from '@switchboard/store';

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
  for (const table of REMOVED_TABLES) would_delete[table] = (await ctx.store.resets.snapshot(table)).count;
  return { would_delete, would_reset: { agents: await ctx.store.resets.agentsToResetCount() }, would_keep: KEPT_RECORDS };
}

export async function cleanup(ctx: ResetContext): Promise<CleanupOutcome> {
  return ctx.store.transaction(async (tx) => {
    // Redrive and replay operations are kept: their items' outcomes are recorded from the
    // deliveries about to be removed, and they say that their records were removed.
    const nowIso = ctx.clock.now().toISOString();
    for (const op of await ctx.store.operations.allUnsettled(tx)) await ctx.store.operations.settle(tx, op, nowIso);
    await ctx.store.operations.markRecordsRemoved(tx, nowIso);
    const deleted = await ctx.store.resets.deleteRunScoped(tx);
    const agents = await ctx.store.resets.resetAgents(tx, ctx.clock.now().toISOString());
    return { deleted, reset: { agents }, kept: KEPT_RECORDS };
  });
}
