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

export const runtimeQueue: Handler<'runtime.queue'> = async (params, ctx) => {
  const [rows, queue_depth] = await Promise.all([ctx.store.runWrites.queued(params.limit ?? DEFAULT_PAGE_LIMIT), ctx.runtime.ingress.queueDepth()]);
  return {
    queued: rows.map((r) => omitAbsent({ queue_id: r.queue_id, event_id: r.event_id, run_id: r.run_id, event_name: r.event_name, entity_id: r.entity_id, source: r.source, queued_at: r.queued_at })),
    queue_depth,
  };
};
