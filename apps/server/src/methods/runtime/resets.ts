import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { omitAbsent, parseJsonObject } from '../../records/omit-absent';
import type { Handler } from '../../rpc/handler';

export const runtimeResets: Handler<'runtime.resets'> = async (params, ctx) => {
  const rows = await ctx.store.runtimeRecords.resets(params.limit ?? DEFAULT_PAGE_LIMIT);
  return {
    resets: rows.map((r) =>
      omitAbsent({
        reset_id: r.reset_id,
        started_at: r.started_at,
        finished_at: r.finished_at,
        status: r.status,
        reason: r.reason,
        actor_token_id: r.actor_token_id,
        actor_token_name: r.actor_token_name,
        plan_hash: r.plan_hash,
        result: r.result ? parseJsonObject(r.result) : undefined,
      }),
    ),
  };
};
