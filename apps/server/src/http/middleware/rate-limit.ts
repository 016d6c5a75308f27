import type { Context, MiddlewareHandler } from 'hono';
import { errorJson, type AppEnv } from '../app-env';
import type { RateLimiter } from '../rate-limiter';

/** Per-token budget (after authentication): 429 RATE_LIMITED with Retry-After when it is spent. */
export function rateLimit(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  const refusal = rateLimitRefusal(limiter);
  return async (c, next) => refusal(c) ?? next();
}

/** rateLimit as a check: the 429 answer, or undefined when the token's budget has room. */
export function rateLimitRefusal(limiter: RateLimiter): (c: Context<AppEnv>) => Response | undefined {
  return (c) => {
    const wait = limiter.take(c.get('principal').tokenId);
    if (wait <= 0) return undefined;
    c.header('Retry-After', String(Math.ceil(wait / 1000)));
    return errorJson(c, 'RATE_LIMITED', 'Rate limited; retry after details.retry_after_ms', { retry_after_ms: wait });
  };
}
