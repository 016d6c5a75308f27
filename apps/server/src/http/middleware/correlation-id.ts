import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

const CORRELATION_RE = /^[A-Za-z0-9._:-]{1,100}$/;

/** Takes a well-formed `X-Correlation-Id` from the client or makes one, and echoes it on the response. */
export function correlationId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-correlation-id');
    const id = incoming && CORRELATION_RE.test(incoming) ? incoming : randomUUID();
    c.set('correlationId', id);
    c.header('x-correlation-id', id);
    await next();
    c.res.headers.set('x-correlation-id', id);
  };
}
