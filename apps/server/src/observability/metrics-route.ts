/**
 * GET /metrics: the Prometheus exposition, for a bearer token with the `metrics` scope (every role
 * has it; a scraper's token can be narrowed to it alone). Served by the API's own listener and,
 * with SWITCHBOARD_METRICS_PORT, by a listener of its own that serves nothing else.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { leastRoleFor } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import type { Logger } from '../logger';
import { AuditTrail } from '../audit/audit-trail';
import { errorJson, type AppEnv } from '../http/app-env';
import { INTERNAL_MESSAGE } from '../rpc/envelope';
import { requestFrame } from '../http/middleware/request-frame';
import { requireAuth } from '../http/middleware/require-auth';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';

export interface MetricsRouteDeps {
  store: Store;
  logger: Logger;
  metrics: Metrics;
  /** This server's id, for the audit records of refused scrapes. */
  serverId: () => string;
}

/** Authentication (401 as the API answers it), the scope check (403 FORBIDDEN) and the scrape. */
export function metricsHandlers(deps: MetricsRouteDeps): readonly [MiddlewareHandler<AppEnv>, MiddlewareHandler<AppEnv>] {
  const authenticated = requireAuth(deps.store, new AuditTrail(deps.store, deps.serverId), deps.logger);
  const scrape: MiddlewareHandler<AppEnv> = async (c) => {
    const principal = c.get('principal');
    if (!principal.scopes.has('metrics')) {
      return errorJson(
        c,
        'FORBIDDEN',
        `Forbidden: GET ${METRICS_PATH} needs the metrics scope (role ${leastRoleFor('metrics')} or above); this ${principal.role}'s token does not have it`,
        {
          required_scope: 'metrics',
          role: principal.role,
          needs_role: leastRoleFor('metrics'),
        },
        403,
      );
    }
    const body = await deps.metrics.scrape();
    c.set('outcome', 'ok');
    return c.body(body, 200, { 'Content-Type': deps.metrics.contentType, 'Cache-Control': 'no-store' });
  };
  return [authenticated, scrape] as const;
}

/** The separate scrape listener's application: /metrics and nothing else. */
export function createMetricsApp(deps: MetricsRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestFrame(deps.logger));
  app.onError((err, c) => {
    deps.logger.error('metrics route error', { correlation_id: c.get('correlationId'), error: err.message, stack: err.stack });
    return errorJson(c, 'INTERNAL', INTERNAL_MESSAGE, {}, 500);
  });
  app.get(METRICS_PATH, ...metricsHandlers(deps));
  app.all('*', (c) => errorJson(c, 'METHOD_NOT_FOUND', `No route ${c.req.method} ${c.req.path}: this listener serves only GET ${METRICS_PATH}`, {}, 404));
  return app;
}
