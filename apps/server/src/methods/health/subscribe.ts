import { RpcError } from '@switchboard/contract';
import type { Handler } from '../../rpc/handler';

export const healthSubscribe: Handler<'health.subscribe'> = async (_params, ctx) => {
  if (!ctx.socket) throw new RpcError('INVALID_REQUEST', 'health.subscribe is only available on /v1/ws');
  return { subscription_id: ctx.socket.subscribe() };
};
