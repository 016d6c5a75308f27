import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import { toConversation } from '../../records/conversation';
import type { Handler } from '../../rpc/handler';

const position = z.strictObject({ started_at: z.string(), seq: z.number().int() });

export const conversationList: Handler<'conversation.list'> = async (params, ctx) => {
  const binding = { filter: params.filter ?? {} };
  const after = params.cursor ? await decodeCursor(ctx.store, 'conversation.list', binding, params.cursor, position) : undefined;
  const page = await ctx.store.conversationReads.page(params.filter ?? {}, { limit: params.limit ?? DEFAULT_PAGE_LIMIT, after });
  return {
    conversations: page.conversations.map(toConversation),
    ...(page.next ? { next_cursor: await encodeCursor(ctx.store, 'conversation.list', binding, page.next) } : {}),
  };
};
