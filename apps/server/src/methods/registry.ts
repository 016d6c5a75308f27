/**
 * Every RPC method's handler, keyed by the contract's method name. A method is callable only if
 * it is in the contract (which carries its schema) and has a handler here.
 */
import type { HandlerRegistry } from '../rpc/handler';
import { healthCheck } from './health/check';
import { healthPing } from './health/ping';
import { healthSubscribe } from './health/subscribe';
import { healthUnsubscribe } from './health/unsubscribe';
import { rpcDiscover } from './rpc/discover';

export const handlers = {
  'health.ping': healthPing,
  'health.check': healthCheck,
  'health.subscribe': healthSubscribe,
  'health.unsubscribe': healthUnsubscribe,
  'rpc.discover': rpcDiscover,
} satisfies HandlerRegistry;
