/**
 * GET /v1/ws as a Hono route: an upgrade request runs through the same middleware as any HTTP
 * request (correlation id, access log, authentication with its audit record), and only a request
 * the route accepts is handed to the socket server. Auth runs before the upgrade, so a failed
 * check gets a plain HTTP answer (401, 403), never a 101; the token is not re-checked for the life
 * of the connection, as the spec says. A browser WebSocket cannot set headers, so the Origin check
 * on its session cookie is what stops cross-site hijacking (authenticate.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { RpcError, type Scope } from '@switchboard/contract';
import type { Logger } from '../logger';
import { INTERNAL_MESSAGE, errorResponse } from '../rpc/envelope';
import type { Principal } from '../rpc/handler';
import { actorOf, channelOf, type AuditFact } from '../audit/audit-trail';
import { errorJson, type AppEnv, type WebSocketUpgrade } from './app-env';

export const WEBSOCKET_PATH = '/v1/ws';
/** How an audit record names a refused WebSocket upgrade. */
export const UPGRADE_AUDIT_METHOD = 'ws.upgrade';
/** How the access log names an upgrade request. */
const UPGRADE_LOG_METHOD = '(websocket upgrade)';
/** The WebSocket carries heartbeats and change notices: opening one needs the heartbeat scope. */
const WEBSOCKET_SCOPE = 'heartbeat' satisfies Scope;

export function isUpgrade(c: Context<AppEnv>): boolean {
  return c.env?.websocket !== undefined;
}

/** For every path: an upgrade request outside /v1/ws is refused with 404 before any route sees it. */
export function upgradesOnlyAtWebSocketPath(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isUpgrade(c)) return next();
    c.set('rpcMethod', UPGRADE_LOG_METHOD);
    if (c.req.path !== WEBSOCKET_PATH) return errorJson(c, 'METHOD_NOT_FOUND', `No WebSocket endpoint at ${c.req.path}`, {}, 404);
    await next();
  };
}

/** Before authentication on /v1/ws: a plain request (no Upgrade) is told to upgrade, signed in or not. */
export function upgradeRequired(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isUpgrade(c)) return errorJson(c, 'INVALID_REQUEST', '/v1/ws is a WebSocket endpoint: send an Upgrade request', {}, 426);
    await next();
  };
}

/** The /v1/ws handler, after authentication: a caller without the heartbeat scope is refused (403, audited). */
export function acceptWebSocket(recordQuietly: (fact: AuditFact) => Promise<void>) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const principal = c.get('principal');
    if (!principal.scopes.has(WEBSOCKET_SCOPE)) {
      await recordQuietly({
        actor: actorOf(principal),
        channel: channelOf(principal),
        method: UPGRADE_AUDIT_METHOD,
        params: { required_scope: WEBSOCKET_SCOPE },
        outcome: 'FORBIDDEN',
        correlationId: c.get('correlationId'),
      });
      return errorJson(c, 'FORBIDDEN', `Forbidden: the WebSocket needs the ${WEBSOCKET_SCOPE} scope`, { required_scope: WEBSOCKET_SCOPE, role: principal.role }, 403);
    }
    c.env!.websocket!.accept(principal);
    c.set('switchingProtocols', true);
    // Never written: the socket server answers the upgrade itself once the middleware is done.
    return c.body(null, 200);
  };
}

/** A refusal goes out on the raw socket as a plain HTTP/1.1 answer, and the connection ends. */
async function writeRefusal(socket: Duplex, res: Response): Promise<void> {
  const body = Buffer.from(await res.arrayBuffer());
  const skip = new Set(['content-length', 'connection', 'transfer-encoding']);
  let head = `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}\r\n`;
  res.headers.forEach((value, name) => {
    if (!skip.has(name)) head += `${name}: ${value}\r\n`;
  });
  head += `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head), body]));
}

function requestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), { headers });
}

/**
 * Routes every upgrade request of `server` through `app`; the ones /v1/ws accepts go to
 * `handOver` (the socket server), the rest get the app's answer.
 */
export function routeUpgrades(server: Server, app: Hono<AppEnv>, logger: Logger, handOver: (req: IncomingMessage, socket: Duplex, head: Buffer, principal: Principal) => void): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    let accepted: Principal | undefined;
    const websocket: WebSocketUpgrade = { accept: (principal) => (accepted = principal) };
    void (async () => {
      try {
        const res = await app.fetch(requestOf(req), { websocket });
        if (accepted) handOver(req, socket, head, accepted);
        else await writeRefusal(socket, res);
      } catch (err) {
        // The app answers its own errors; this is a request it could not even be given.
        logger.error('ws upgrade failed', { error: err instanceof Error ? err.message : String(err) });
        const body = JSON.stringify(errorResponse(null, new RpcError('INTERNAL', INTERNAL_MESSAGE), randomUUID()));
        socket.end(`HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      }
    })();
  });
}
