import type { Handler } from '../../rpc/handler';

export const healthPing: Handler<'health.ping'> = async (_params, ctx) => ({
  ok: true,
  ts: ctx.store.clock.now().toISOString(),
});
