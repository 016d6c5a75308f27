import type { MiddlewareHandler } from 'hono';
import { bodyLimit as countingBodyLimit } from 'hono/body-limit';
import { errorJson, type AppEnv } from '../app-env';

/**
 * 413 PAYLOAD_TOO_LARGE above `maxBytes`. A declared Content-Length is judged from the header
 * alone, without reading or wrapping the body; a chunked body is counted as it is read, and
 * reading stops at the limit. Either way the rest of the body may still be on the wire, so the
 * connection cannot carry another request: every 413 says `Connection: close`, and a keep-alive
 * client opens a new connection instead of waiting on one the server is about to drop.
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => {
    const res = errorJson(c, 'PAYLOAD_TOO_LARGE', `Request body is over the ${maxBytes}-byte limit`, { limit_bytes: maxBytes });
    res.headers.set('Connection', 'close');
    return res;
  };
  const counting = countingBodyLimit({ maxSize: maxBytes, onError: (c) => tooLarge(c as Parameters<MiddlewareHandler<AppEnv>>[0]) });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined) return counting(c, next);
    const length = Number(declared);
    if (!Number.isSafeInteger(length) || length < 0 || length > maxBytes) return tooLarge(c);
    await next();
  };
}
