import type { SavedViewRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { savedViewResult, viewActorOf } from '../../records/saved-view';

export const viewCreate: Handler<'view.create'> = async (params, ctx) => {
  const shape = (v: SavedViewRecord) => savedViewResult(v, ctx.principal.userId);
  const answer = ctx.mutation?.answerWith((v: SavedViewRecord) => ({ view: shape(v) }));
  const { idempotency_key: _key, ...input } = params;
  const view = await ctx.runtime.savedViews.create(viewActorOf(ctx.principal), input, answer);
  return { view: shape(view) };
};
