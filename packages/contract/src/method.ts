import type { z } from 'zod';
import type { Scope } from './access';
import type { ErrorCode } from './errors';

/**
 * One RPC method, described once: the server validates with it, the console calls with it and
 * rpc.discover publishes it.
 */
export interface MethodDefinition<
  Name extends string = string,
  Params extends z.ZodType = z.ZodType,
  Result extends z.ZodType = z.ZodType,
  MethodScope extends Scope = Scope,
> {
  name: Name;
  summary: string;
  description?: string;
  params: Params;
  result: Result;
  /** Error codes beyond the transport-level ones every method can return. */
  errors: readonly ErrorCode[];
  /** The scope a caller needs; a call without it is refused with FORBIDDEN before anything runs. */
  scope: MethodScope;
  /** Mutating methods accept `idempotency_key` and go through the idempotency layer. */
  mutating: boolean;
  deprecated?: boolean;
  /** Only callable over the WebSocket (subscriptions). */
  websocketOnly?: boolean;
}

/** Keeps each method's scope as its literal type, so the console can check its own table against it. */
export function defineMethod<Name extends string, Params extends z.ZodType, Result extends z.ZodType, MethodScope extends Scope>(
  def: MethodDefinition<Name, Params, Result, MethodScope>,
): MethodDefinition<Name, Params, Result, MethodScope> {
  return def;
}

/** Codes any method can return because of the transport, auth or rate limiting. */
export const transportErrorCodes: readonly ErrorCode[] = [
  'PARSE_ERROR',
  'INVALID_REQUEST',
  'METHOD_NOT_FOUND',
  'INVALID_PARAMS',
  'INTERNAL',
  'STORE_BUSY',
  'STORE_UNAVAILABLE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'RATE_LIMITED',
  'PAYLOAD_TOO_LARGE',
];
