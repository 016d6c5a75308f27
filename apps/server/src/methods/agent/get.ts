import { RpcError } from '@switchboard/contract';
import { agentRefs, toAgent } from '../../records/agent';
import type { Handler } from '../../rpc/handler';

export const agentGet: Handler<'agent.get'> = async (params, ctx) => {
  const view = await ctx.store.agentReads.get(params.agent_id);
  if (!view) throw new RpcError('NOT_FOUND', `No agent ${params.agent_id}`, { resource: 'agent', id: params.agent_id });
  return { agent: toAgent(view), ...agentRefs(view) };
};
