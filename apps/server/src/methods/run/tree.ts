import { RpcError } from '@switchboard/contract';
import { omitAbsent } from '../../records/omit-absent';
import { toRun } from '../../records/run';
import type { Handler } from '../../rpc/handler';

export const runTree: Handler<'run.tree'> = async (params, ctx) => {
  const run = await ctx.store.runReads.get(params.run_id);
  if (!run) throw new RpcError('NOT_FOUND', `No run ${params.run_id}`, { resource: 'run', id: params.run_id });
  const t = await ctx.store.runReads.tree(params.run_id);
  return {
    run: toRun(run),
    events: t.events.map((e) => omitAbsent({ ...e, chain_depth: Number(e.chain_depth) })),
    deliveries: t.deliveries.map((d) => omitAbsent({ ...d, subscriber_type: d.subscriber_type as 'node' | 'agent', attempts: Number(d.attempts) })),
    dead_letters: t.dead_letters.map((l) => omitAbsent(l)),
    turns: t.turns.map((x) => omitAbsent({ ...x, parse_ok: Boolean(x.parse_ok), latency_ms: Number(x.latency_ms) })),
    mailbox_items: t.mailbox.map((m) => omitAbsent(m)),
    truncated: t.truncated,
    replays: t.replays.map((r) => omitAbsent({ event_id: r.event_id, run_id: r.run_id, replay_of_event_id: r.replay_of_event_id ?? '' })),
  };
};
