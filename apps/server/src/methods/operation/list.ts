import { DEFAULT_PAGE_LIMIT } from '@switchboard/contract';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import type { Handler } from '../../rpc/handler';

const position = z.strictObject({ created_at: z.string(), operation_id: z.string() });

export const operationList: Handler<'operation.list'> = async (params, ctx) => {
  const binding = { status: params.status ?? null, kind: params.kind ?? null };
  const after = params.cursor ? await decodeCursor(ctx.store, 'operation.list', binding, params.cursor, position) : undefined;
  const page = await ctx.runtime.recovery.list({ status: params.status, kind: params.kind, limit: params.limit ?? DEFAULT_PAGE_LIMIT, after });
  return {
    operations: page.operations,
    ...(page.next ? { next_cursor: await encodeCursor(ctx.store, 'operation.list', binding, page.next) } : {}),
  };
};
