import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../../logger';
import type { AppEnv } from '../app-env';

const CORRELATION_RE = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * What every request gets, in one middleware (each layer of Hono's chain is an async frame on
 * every request): its correlation id, taken from a well-formed `X-Correlation-Id` or made, echoed
 * on the response with `X-Content-Type-Options: nosniff` (JSON, assets and errors alike); then
 * exactly one access-log line when the response is known (WebSocket upgrades included; probes and
 * console files only at debug level).
 */
export function requestFrame(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header('x-correlation-id');
    const id = incoming && CORRELATION_RE.test(incoming) ? incoming : randomUUID();
    c.set('correlationId', id);
    await next();
    // A response built with frameHeaders carries them already, in the form Node writes fastest.
    if (!c.get('framed')) {
      c.res.headers.set('x-correlation-id', id);
      c.res.headers.set('x-content-type-options', 'nosniff');
    }
    writeAccessLine(logger, c, started);
  };
}

/** The frame's response headers, for a route that builds its own Response on a hot path. */
export function frameHeaders(c: Context<AppEnv>, contentType: string): Record<string, string> {
  c.set('framed', true);
  return { 'content-type': contentType, 'x-correlation-id': c.get('correlationId'), 'x-content-type-options': 'nosniff' };
}

function writeAccessLine(logger: Logger, c: Context<AppEnv>, started: number): void {
  const path = c.req.path;
  const rpcMethod = c.get('rpcMethod');
  const level = path.startsWith('/v1/') || rpcMethod !== undefined ? 'info' : 'debug';
  if (!logger.enabled(level)) return;
  const status = c.get('switchingProtocols') ? 101 : c.res.status;
  const authFailure = c.get('authFailure');
  logger.log(level, 'request', {
    correlation_id: c.get('correlationId'),
    http_method: c.req.method,
    path,
    status,
    ...(rpcMethod !== undefined ? { method: rpcMethod } : {}),
    token_id: c.get('principal')?.tokenId ?? null,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    outcome: c.get('outcome') ?? (status < 400 ? 'ok' : `http_${status}`),
    ...(authFailure ? { detail: authFailure } : {}),
  });
}
