import type { Handler } from '../../rpc/handler';
import { silenceResult } from '../../records/alert';

export const alertSilences: Handler<'alert.silences'> = async (params, ctx) => {
  const now = ctx.store.clock.now().toISOString();
  const silences = await ctx.store.alerts.silences(now, params.include_ended ?? false);
  return { items: silences.map((s) => silenceResult(s, now)) };
};
