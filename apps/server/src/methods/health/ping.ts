import type { Handler } from '../../rpc/handler';
import { isoTimestamp } from '../../iso-timestamp';

export const healthPing: Handler<'health.ping'> = async (_params, ctx) => ({
  ok: true,
  ts: isoTimestamp(ctx.store.clock.now().getTime()),
});
