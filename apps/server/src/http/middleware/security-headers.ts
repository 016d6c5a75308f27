import type { MiddlewareHandler } from 'hono';

/** On every response: no content sniffing (JSON, assets and errors alike). */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
  };
}
