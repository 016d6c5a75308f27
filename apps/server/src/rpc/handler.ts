import type { MethodDefinition, MethodName, Params, Result, Role, Scope } from '@switchboard/contract';
import type { z } from 'zod';
import type { Store } from '@switchboard/store';
import type { Runtime } from '@switchboard/runtime';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { ReaderThreads } from '../reads/reader-threads';
import type { ThreadReadMethod } from '../reads/thread-read-method';
import type { MutationCall } from './idempotency';
import type { SerializedResult } from './serialized-result';

/** Who is calling: the token a request authenticated with (never its secret) and its person. */
export interface Principal {
  tokenId: string;
  tokenName: string;
  userId: string;
  userName: string;
  role: Role;
  /** What this caller may do: the role's scopes, narrowed by the token's own list. */
  scopes: ReadonlySet<Scope>;
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
  /**
   * Present on every mutating call: hand `mutation.answerWith(...)` to the runtime operation that
   * is the call's effect, so its audit record (and a keyed call's answer) commit with it.
   */
  mutation?: MutationCall;
  /** Present where list pages are read in reader threads (SQLite, unless turned off). */
  readers?: ReaderThreads;
  /** Present on the WebSocket transport: subscription bookkeeping for this socket. */
  socket?: SocketSubscriptions;
}

export interface SocketSubscriptions {
  subscribe(): string;
  unsubscribe(subscriptionId: string): boolean;
}

/** A handler's answer: the result; for a thread-read method, its JSON text when a reader thread read it. */
export type Handler<M extends MethodName> = (params: Params<M>, ctx: HandlerContext) => Promise<Result<M> | (M extends ThreadReadMethod ? SerializedResult<M> : never)>;

/** Handlers keyed by method name; partial so tests can add or override a few. */
export type HandlerRegistry = { [M in MethodName]?: Handler<M> };
/** The server's full registry: a contract method without a handler is a compile error. */
export type CompleteHandlerRegistry = { [M in MethodName]: Handler<M> };

/**
 * A method that is not part of the published contract but carries its own definition (tests use
 * this for test-only methods). It goes through the same validation and idempotency layer, and
 * never appears in rpc.discover.
 */
export interface ExtraMethod<D extends MethodDefinition = MethodDefinition> {
  definition: D;
  // Method syntax keeps the handler bivariant, so typed entries fit in an ExtraMethod[].
  handler(params: z.output<D['params']>, ctx: HandlerContext): Promise<z.output<D['result']>>;
}

/** Typed constructor for an ExtraMethod: params and result types come from the definition. */
export function extraMethod<D extends MethodDefinition>(definition: D, handler: ExtraMethod<D>['handler']): ExtraMethod<D> {
  return { definition, handler };
}
