/**
 * runtime.retention_run: a retention pass or preview now (ADR 0018). The pass runs many short
 * transactions, so the call is audited after it, with its outcome, like a dry-run reset.
 */
import { RpcError } from '@switchboard/contract';
import type { Handler } from '../../rpc/handler';
import { retentionRunOf, retentionStorageOf } from '../../records/retention';

export const runtimeRetentionRun: Handler<'runtime.retention_run'> = async (params, ctx) => {
  if (ctx.runtime.isResetting()) throw new RpcError('RESET_IN_PROGRESS', 'A runtime reset is in progress; retry when it has finished');
  const outcome = await ctx.runtime.retention.run({ dryRun: params.dry_run, trigger: 'manual' });
  if (!outcome.ran) return { ran: false, held_by: outcome.held_by };
  return {
    ran: true,
    run: retentionRunOf(outcome.run),
    ...(outcome.storage_before ? { storage_before: retentionStorageOf(outcome.storage_before) } : {}),
    ...(outcome.storage_after ? { storage_after: retentionStorageOf(outcome.storage_after) } : {}),
  };
};
