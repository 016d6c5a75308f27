import type { Context, MiddlewareHandler } from 'hono';
import type { Store } from '@switchboard/store';
import { errorJson, type AppEnv } from '../app-env';
import { authenticate } from '../authenticate';

/** "http" or "https" as the client sees it (a TLS-terminating proxy says so in X-Forwarded-Proto). */
export function protocolOf(c: Context<AppEnv>): string {
  if (c.req.header('x-forwarded-proto') === 'https') return 'https';
  return c.req.url.startsWith('https:') ? 'https' : 'http';
}

/** Bearer token or same-origin session cookie; 401 UNAUTHENTICATED with the reason otherwise. */
export function requireAuth(store: Store): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const outcome = await authenticate(store, {
      authorization: c.req.header('authorization'),
      cookie: c.req.header('cookie'),
      origin: c.req.header('origin'),
      host: c.req.header('host'),
      protocol: protocolOf(c),
      safeMethod: c.req.method === 'GET' || c.req.method === 'HEAD',
      fetchSite: c.req.header('sec-fetch-site'),
    });
    if (!outcome.ok) {
      c.set('authFailure', outcome.reason);
      return errorJson(c, 'UNAUTHENTICATED', `Unauthenticated: ${outcome.reason}`);
    }
    c.set('principal', outcome.principal);
    await next();
  };
}
