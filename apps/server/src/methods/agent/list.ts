import { keysetPage } from '../../pagination/keyset-page';
import { agentPosition } from '../../pagination/positions';
import { agentRefs, toAgent } from '../../records/agent';
import type { Handler } from '../../rpc/handler';

export const agentList: Handler<'agent.list'> = async (params, ctx) => {
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'agent.list', binding: {}, position: agentPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.store.agentReads.page({ limit, after }),
  );
  return { agents: page.agents.map((view) => ({ ...toAgent(view), ...agentRefs(view) })), ...nextCursor };
};
