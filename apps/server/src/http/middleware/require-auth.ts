import type { Context, MiddlewareHandler } from 'hono';
import type { Store } from '@switchboard/store';
import { errorJson, type AppEnv } from '../app-env';
import { SESSION_COOKIE, authenticate, readCookie } from '../authenticate';
import { unauthenticatedFact, type AuditTrail } from '../../audit/audit-trail';
import type { Logger } from '../../logger';
import { UPGRADE_AUDIT_METHOD, isUpgrade } from '../websocket-upgrade';

/** "http" or "https" as the client sees it (a TLS-terminating proxy says so in X-Forwarded-Proto). */
export function protocolOf(c: Context<AppEnv>): string {
  if (c.req.header('x-forwarded-proto') === 'https') return 'https';
  return c.req.url.startsWith('https:') ? 'https' : 'http';
}

/**
 * Bearer token or same-origin session cookie, for HTTP routes and WebSocket upgrades alike; 401
 * UNAUTHENTICATED with the reason otherwise, and an audit record of the refusal, except for the
 * console's own "am I signed in?" probe that presents nothing.
 */
export function requireAuth(store: Store, audit: AuditTrail, logger: Logger): MiddlewareHandler<AppEnv> {
  const refusal = authRefusal(store, audit, logger);
  return async (c, next) => {
    const refused = await refusal(c);
    if (refused) return refused;
    await next();
  };
}

/** requireAuth as a check: the 401 answer (audited), or undefined with the principal set. */
export function authRefusal(store: Store, audit: AuditTrail, logger: Logger): (c: Context<AppEnv>) => Promise<Response | undefined> {
  return async (c) => {
    const authorization = c.req.header('authorization');
    const cookie = c.req.header('cookie');
    const upgrade = isUpgrade(c);
    const outcome = await authenticate(store, {
      authorization,
      cookie,
      origin: c.req.header('origin'),
      host: c.req.header('host'),
      protocol: protocolOf(c),
      // An upgrade is a GET that opens a channel for writes: its cookie needs a same-origin Origin.
      safeMethod: !upgrade && (c.req.method === 'GET' || c.req.method === 'HEAD'),
      fetchSite: c.req.header('sec-fetch-site'),
    });
    if (!outcome.ok) {
      c.set('authFailure', outcome.reason);
      const sessionCookie = readCookie(cookie, SESSION_COOKIE) !== undefined;
      const probe = c.req.method === 'GET' && c.req.path === '/v1/auth/session' && !authorization && !sessionCookie;
      if (!probe) {
        const method = upgrade ? UPGRADE_AUDIT_METHOD : (c.req.param('method') ?? `${c.req.method} ${c.req.path}`).slice(0, 100);
        const where = { method, path: c.req.path, reason: outcome.reason, correlationId: c.get('correlationId') };
        await audit.recordQuietly(unauthenticatedFact({ authorization, sessionCookie }, where), (error) =>
          logger.error('audit record not written', { correlation_id: where.correlationId, outcome: 'UNAUTHENTICATED', error: error instanceof Error ? error.message : String(error) }),
        );
      }
      return errorJson(c, 'UNAUTHENTICATED', `Unauthenticated: ${outcome.reason}`);
    }
    c.set('principal', outcome.principal);
    return undefined;
  };
}
