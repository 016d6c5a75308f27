import type { MiddlewareHandler } from 'hono';
import { errorJson, type AppEnv } from '../app-env';
import type { RateLimiter } from '../rate-limiter';

/** Per-token budget (after authentication): 429 RATE_LIMITED with Retry-After when it is spent. */
export function rateLimit(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const wait = limiter.take(c.get('principal').tokenId);
    if (wait > 0) {
      c.header('Retry-After', String(Math.ceil(wait / 1000)));
      return errorJson(c, 'RATE_LIMITED', 'Rate limited; retry after details.retry_after_ms', { retry_after_ms: wait });
    }
    await next();
  };
}
