import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import { toMailboxItem } from '../../records/mailbox-item';
import type { Handler } from '../../rpc/handler';

const position = z.strictObject({ pending: z.boolean(), seq: z.number().int() });

export const mailboxList: Handler<'mailbox.list'> = async (params, ctx) => {
  const binding = { filter: params.filter ?? {} };
  const after = params.cursor ? await decodeCursor(ctx.store, 'mailbox.list', binding, params.cursor, position) : undefined;
  const page = await ctx.store.mailboxReads.page(params.filter ?? {}, { limit: params.limit ?? DEFAULT_PAGE_LIMIT, after });
  return {
    items: page.items.map(toMailboxItem),
    ...(page.next ? { next_cursor: await encodeCursor(ctx.store, 'mailbox.list', binding, page.next) } : {}),
  };
};
