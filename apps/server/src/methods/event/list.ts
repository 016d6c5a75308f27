import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import { toStoredEvent } from '../../records/stored-event';
import type { Handler } from '../../rpc/handler';

const position = z.strictObject({ created_at: z.string(), seq: z.number().int() });

export const eventList: Handler<'event.list'> = async (params, ctx) => {
  const binding = { filter: params.filter ?? {}, since: params.since, until: params.until };
  const after = params.cursor ? await decodeCursor(ctx.store, 'event.list', binding, params.cursor, position) : undefined;
  const page = await ctx.store.events.page(
    { ...params.filter, since: params.since, until: params.until },
    { limit: params.limit ?? DEFAULT_PAGE_LIMIT, after },
  );
  return {
    events: page.events.map(toStoredEvent),
    ...(page.next ? { next_cursor: await encodeCursor(ctx.store, 'event.list', binding, page.next) } : {}),
  };
};
