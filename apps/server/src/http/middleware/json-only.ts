import type { MiddlewareHandler } from 'hono';
import { errorJson, type AppEnv } from '../app-env';

/** 415 unless the body is declared application/json. */
export function jsonOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return errorJson(c, 'INVALID_REQUEST', 'Content-Type must be application/json', { content_type: type || null }, 415);
    }
    await next();
  };
}
