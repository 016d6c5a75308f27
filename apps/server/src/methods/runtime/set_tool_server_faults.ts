import type { Handler } from '../../rpc/handler';

export const runtimeSetToolServerFaults: Handler<'runtime.set_tool_server_faults'> = (params, ctx) =>
  ctx.runtime.setToolServerFaults(params.tool_server, params.faults, ctx.principal.tokenId, ctx.mutation?.answerWith((outcome) => outcome));
