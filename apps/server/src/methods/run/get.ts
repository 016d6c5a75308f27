import { RpcError } from '@switchboard/contract';
import { toRun } from '../../records/run';
import type { Handler } from '../../rpc/handler';

export const runGet: Handler<'run.get'> = async (params, ctx) => {
  const run = await ctx.store.runReads.get(params.run_id);
  if (!run) throw new RpcError('NOT_FOUND', `No run ${params.run_id}`, { resource: 'run', id: params.run_id });
  return { run: toRun(run) };
};
