import { RpcError } from '@switchboard/contract';
import { toConversation, toTurn } from '../../records/conversation';
import type { Handler } from '../../rpc/handler';

export const conversationGet: Handler<'conversation.get'> = async (params, ctx) => {
  const found = await ctx.store.conversationReads.get(params.session_id);
  if (!found) throw new RpcError('NOT_FOUND', `No conversation ${params.session_id}`, { resource: 'conversation', id: params.session_id });
  return { conversation: toConversation(found.conversation), turns: found.turns.map(toTurn) };
};
