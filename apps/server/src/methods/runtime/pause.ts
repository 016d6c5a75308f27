import type { Handler } from '../../rpc/handler';

export const runtimePause: Handler<'runtime.pause'> = async (params, ctx) => {
  const { ingress } = await ctx.runtime.pause(params.reason, ctx.principal.tokenId, ctx.mutation?.answerWith((outcome) => outcome));
  return { ok: true, ingress };
};
