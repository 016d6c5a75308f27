import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import { agentRefs, toAgent } from '../../records/agent';
import type { Handler } from '../../rpc/handler';

const position = z.strictObject({ agent_id: z.string() });

export const agentList: Handler<'agent.list'> = async (params, ctx) => {
  const after = params.cursor ? await decodeCursor(ctx.store, 'agent.list', {}, params.cursor, position) : undefined;
  const page = await ctx.store.agentReads.page({ limit: params.limit ?? DEFAULT_PAGE_LIMIT, after: after?.agent_id });
  return {
    agents: page.agents.map((view) => ({ ...toAgent(view), ...agentRefs(view) })),
    ...(page.next ? { next_cursor: await encodeCursor(ctx.store, 'agent.list', {}, { agent_id: page.next }) } : {}),
  };
};
