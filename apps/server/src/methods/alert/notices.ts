import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import type { Handler } from '../../rpc/handler';
import { noticeResult } from '../../records/alert';

const position = z.strictObject({ created_at: z.string().min(1), id: z.string().min(1) });

/** alert.notices: newest first; the cursor carries the last notice shown and is bound to the filters. */
export const alertNotices: Handler<'alert.notices'> = async (params, ctx) => {
  const filter = { ruleId: params.rule_id, destinationId: params.destination_id, status: params.status, subjectId: params.subject_id, since: params.since };
  const binding = Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, v ?? null]));
  const after = params.cursor ? await decodeCursor(ctx.store, 'alert.notices', binding, params.cursor, position) : undefined;
  const limit = params.limit ?? DEFAULT_PAGE_LIMIT;
  // One more than the page: whether a next page exists without a count.
  const rows = await ctx.store.alerts.notices.page(filter, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(noticeResult),
    ...(rows.length > limit && last ? { next_cursor: await encodeCursor(ctx.store, 'alert.notices', binding, { created_at: last.created_at, id: last.id }) } : {}),
  };
};
