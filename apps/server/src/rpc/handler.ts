import type { MethodName, Params, Result } from '@switchboard/contract';
import type { Store, TokenRecord } from '@switchboard/store';
import type { Runtime } from '@switchboard/runtime';
import type { Config } from '../config';
import type { Logger } from '../logger';

/** Who is calling: the token a request authenticated with (never its secret). */
export interface Principal {
  tokenId: string;
  tokenName: string;
  via: 'bearer' | 'cookie';
}

/** Everything a method handler may use. Handlers reach state only through these. */
export interface HandlerContext {
  store: Store;
  runtime: Runtime;
  config: Config;
  logger: Logger;
  principal: Principal;
  correlationId: string;
  transport: 'http' | 'ws';
  /** Present on the WebSocket transport: subscription bookkeeping for this socket. */
  socket?: SocketSubscriptions;
}

export interface SocketSubscriptions {
  subscribe(): string;
  unsubscribe(subscriptionId: string): boolean;
}

export type Handler<M extends MethodName> = (params: Params<M>, ctx: HandlerContext) => Promise<Result<M>>;

export type HandlerRegistry = { [M in MethodName]?: Handler<M> };
