/** Opens ingress and releases every queued publish to dispatch exactly once (see runtime ingress). */
import type { Handler } from '../../rpc/handler';

export const runtimeResume: Handler<'runtime.resume'> = async (_params, ctx) => {
  const { released } = await ctx.runtime.resume(ctx.principal.tokenId, ctx.mutation?.answerWith((outcome) => outcome));
  return { ok: true, released };
};
