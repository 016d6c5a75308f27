import type { Context, MiddlewareHandler } from 'hono';
import { errorJson, type AppEnv } from '../app-env';

/** 415 unless the body is declared application/json. */
export function jsonOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => notJsonRefusal(c) ?? next();
}

/** jsonOnly as a check: the 415 answer, or undefined for a body declared application/json. */
export function notJsonRefusal(c: Context<AppEnv>): Response | undefined {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return errorJson(c, 'INVALID_REQUEST', 'Content-Type must be application/json', { content_type: type || null }, 415);
}
