import type { Handler } from '../../rpc/handler';

export const operationCancel: Handler<'operation.cancel'> = (params, ctx) =>
  ctx.runtime.recovery.cancel(params.operation_id, ctx.principal.tokenId, ctx.mutation?.answerWith((outcome) => outcome));
