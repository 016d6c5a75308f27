import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../logger';
import type { AppEnv } from '../app-env';

/** Exactly one line per request (WebSocket upgrades included), written when the response is known; probes and console files only at debug level. */
export function accessLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
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
  };
}
