import type { SavedViewRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { savedViewResult, viewActorOf } from '../../records/saved-view';

export const viewUpdate: Handler<'view.update'> = async (params, ctx) => {
  const shape = (v: SavedViewRecord) => savedViewResult(v, ctx.principal.userId);
  const answer = ctx.mutation?.answerWith((v: SavedViewRecord) => ({ view: shape(v) }));
  const { view_id, idempotency_key: _key, ...changes } = params;
  const view = await ctx.runtime.savedViews.update(viewActorOf(ctx.principal), view_id, changes, answer);
  return { view: shape(view) };
};
