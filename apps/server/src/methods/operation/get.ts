import type { Handler } from '../../rpc/handler';

export const operationGet: Handler<'operation.get'> = (params, ctx) => ctx.runtime.recovery.get(params.operation_id, params.items_limit ?? 50);
