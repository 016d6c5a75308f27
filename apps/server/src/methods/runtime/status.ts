import type { Handler } from '../../rpc/handler';

export const runtimeStatus: Handler<'runtime.status'> = async (_params, ctx) => ctx.runtime.status();
