import type { Handler } from '../../rpc/handler';
import { savedViewResult, viewActorOf } from '../../records/saved-view';

export const viewList: Handler<'view.list'> = async (params, ctx) => {
  const views = await ctx.runtime.savedViews.visibleTo(viewActorOf(ctx.principal), params.list);
  return { items: views.map((v) => savedViewResult(v, ctx.principal.userId)) };
};
