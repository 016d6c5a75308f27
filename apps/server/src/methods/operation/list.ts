import { keysetPage } from '../../pagination/keyset-page';
import { operationPosition } from '../../pagination/positions';
import type { Handler } from '../../rpc/handler';

export const operationList: Handler<'operation.list'> = async (params, ctx) => {
  const binding = { status: params.status ?? null, kind: params.kind ?? null };
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'operation.list', binding, position: operationPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.runtime.recovery.list({ status: params.status, kind: params.kind, limit, after }),
  );
  return { operations: page.operations, ...nextCursor };
};
