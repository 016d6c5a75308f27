import type { Handler } from '../../rpc/handler';

/** The events a replay published of one event, for "Replayed as …" on the event's detail. */
export const eventReplays: Handler<'event.replays'> = async (params, ctx) => ({
  replays: (await ctx.store.operations.replaysOf(params.event_id)).map((r) => ({ event_id: r.event_id, created_at: r.created_at, ...(r.run_id ? { run_id: r.run_id } : {}) })),
});
