import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { omitAbsent } from '../../records/omit-absent';
import type { Handler } from '../../rpc/handler';

export const runtimeQueue: Handler<'runtime.queue'> = async (params, ctx) => {
  const [rows, queue_depth] = await Promise.all([ctx.store.runWrites.queued(params.limit ?? DEFAULT_PAGE_LIMIT), ctx.runtime.ingress.queueDepth()]);
  return {
    queued: rows.map((r) => omitAbsent({ queue_id: r.queue_id, event_id: r.event_id, run_id: r.run_id, event_name: r.event_name, entity_id: r.entity_id, source: r.source, queued_at: r.queued_at })),
    queue_depth,
  };
};
