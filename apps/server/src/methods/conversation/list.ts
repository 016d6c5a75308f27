import { keysetPage } from '../../pagination/keyset-page';
import { conversationPosition } from '../../pagination/positions';
import { toConversation } from '../../records/conversation';
import type { Handler } from '../../rpc/handler';

export const conversationList: Handler<'conversation.list'> = async (params, ctx) => {
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'conversation.list', binding: { filter: params.filter ?? {} }, position: conversationPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.store.conversationReads.page(params.filter ?? {}, { limit, after }),
  );
  return { conversations: page.conversations.map(toConversation), ...nextCursor };
};
