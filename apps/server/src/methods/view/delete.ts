import type { Handler } from '../../rpc/handler';
import { viewActorOf } from '../../records/saved-view';

export const viewDelete: Handler<'view.delete'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((id: string) => ({ view_id: id, deleted: true as const }));
  await ctx.runtime.savedViews.delete(viewActorOf(ctx.principal), params.view_id, answer);
  return { view_id: params.view_id, deleted: true };
};
