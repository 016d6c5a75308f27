import type { MiddlewareHandler } from 'hono';
import { bodyLimit as countingBodyLimit } from 'hono/body-limit';
import { errorJson, type AppEnv } from '../app-env';

/**
 * 413 PAYLOAD_TOO_LARGE above `maxBytes`. A declared Content-Length is judged from the header
 * alone, without reading or wrapping the body; such a 413 says `Connection: close`, because the
 * unread body is still on the wire and the connection cannot carry another request. A chunked
 * body is counted as it is read (and then fully consumed, so its connection stays usable).
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Parameters<MiddlewareHandler<AppEnv>>[0]) =>
    errorJson(c, 'PAYLOAD_TOO_LARGE', `Request body is over the ${maxBytes}-byte limit`, { limit_bytes: maxBytes });
  const counting = countingBodyLimit({ maxSize: maxBytes, onError: (c) => tooLarge(c as Parameters<MiddlewareHandler<AppEnv>>[0]) });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined) return counting(c, next);
    const length = Number(declared);
    if (!Number.isSafeInteger(length) || length < 0 || length > maxBytes) {
      const res = tooLarge(c);
      res.headers.set('Connection', 'close');
      return res;
    }
    await next();
  };
}
