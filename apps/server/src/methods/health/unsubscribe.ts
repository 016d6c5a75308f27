import { RpcError } from '@switchboard/contract';
import type { Handler } from '../../rpc/handler';

export const healthUnsubscribe: Handler<'health.unsubscribe'> = async (params, ctx) => {
  if (!ctx.socket) throw new RpcError('INVALID_REQUEST', 'health.unsubscribe is only available on /v1/ws');
  if (!ctx.socket.unsubscribe(params.subscription_id)) {
    throw new RpcError('NOT_FOUND', 'No such subscription on this socket', { resource: 'subscription', id: params.subscription_id });
  }
  return { ok: true };
};
