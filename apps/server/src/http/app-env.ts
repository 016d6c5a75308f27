import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RpcError, errorRegistry, type ErrorCode } from '@switchboard/contract';
import { errorResponse } from '../rpc/envelope';
import type { Principal } from '../rpc/handler';

/** What the HTTP middleware leave on a request's context for the routes and the access log. */
/** What the upgrade listener hands the app for an upgrade request: the route calls accept once auth passed. */
export interface WebSocketUpgrade {
  accept(principal: Principal): void;
}

export type AppEnv = {
  /** Set only when the request is a WebSocket upgrade (websocket-upgrade.ts runs it through the app). */
  Bindings: { websocket?: WebSocketUpgrade };
  Variables: {
    correlationId: string;
    principal: Principal;
    /** For the request's log line: the RPC method name(s) called, when known. */
    rpcMethod?: string | string[];
    /** For the request's log line: `ok`, or the error code(s) answered. */
    outcome?: string;
    /** For the request's log line: why authentication failed. */
    authFailure?: string;
    /** The response was built with the frame's headers (request-frame.ts), which need not add them again. */
    framed?: boolean;
    /** For the request's log line: the upgrade was accepted, so the client gets 101, not the route's answer. */
    switchingProtocols?: boolean;
  };
};

/** A JSON-RPC error body outside any request (auth, limits, routing), with the registry's HTTP status unless overridden. */
export function errorJson(c: Context<AppEnv>, code: ErrorCode, message?: string, details: Record<string, unknown> = {}, status?: number): Response {
  const httpStatus = (status ?? errorRegistry[code].httpStatus) as ContentfulStatusCode;
  const body = errorResponse(null, new RpcError(code, message, details), c.get('correlationId'));
  if (httpStatus === 401) c.header('WWW-Authenticate', 'Bearer');
  c.set('outcome', code);
  return c.json(body, httpStatus);
}
