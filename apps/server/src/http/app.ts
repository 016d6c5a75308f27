/**
 * The Hono application: probes, browser sign-in, the JSON-RPC routes and the console's static
 * files. Routes only parse, authenticate and dispatch; methods do the work.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import { RpcError, type AuthConfig, type SignOutAnswer } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { Store } from '@switchboard/store';
import type { Config } from '../config';
import { openRpcDocument } from '../openrpc-document';
import type { Logger } from '../logger';
import { INTERNAL_MESSAGE, MAX_BATCH, answerText, errorResponse, methodNameOf, readRequest, type RpcResponse } from '../rpc/envelope';
import type { MethodExecutor } from '../rpc/method-executor';
import type { HandlerContext, Principal } from '../rpc/handler';
import { errorJson, type AppEnv } from './app-env';
import { SESSION_COOKIE, SESSION_TTL_MS, authenticate, isSameOrigin, principalOf } from './authenticate';
import { AuditTrail, actorOf, presentedSecretFingerprint, type AuditActor, type AuditFact } from '../audit/audit-trail';
import { bodyLimit } from './middleware/body-limit';
import { frameHeaders, requestFrame } from './middleware/request-frame';
import { jsonOnly, notJsonRefusal } from './middleware/json-only';
import { rateLimit, rateLimitRefusal } from './middleware/rate-limit';
import { authRefusal, protocolOf, requireAuth } from './middleware/require-auth';
import type { RateLimiter } from './rate-limiter';
import { serveConsole } from './console-static';
import { exportRoute } from './export-route';
import type { OidcSignIn } from './oidc/sign-in';
import { setSessionCookie } from './session-cookie';
import { WEBSOCKET_PATH, acceptWebSocket, upgradeRequired, upgradesOnlyAtWebSocketPath } from './websocket-upgrade';
import { retryableStoreError } from '../rpc/store-busy';
import { METRICS_PATH, metricsHandlers } from '../observability/metrics-route';
import type { Metrics } from '../observability/metrics';
import type { ReaderThreads } from '../reads/reader-threads';

export interface AppDeps {
  config: Config;
  store: Store;
  runtime: Runtime;
  logger: Logger;
  methodExecutor: MethodExecutor;
  /** Whether the store is open and the bundle loaded (readiness). */
  isReady: () => boolean;
  /** Per-token request budget, shared with the WebSocket transport. */
  limiter: RateLimiter;
  /** Single sign-on, when configured. */
  oidc?: OidcSignIn;
  /** Prometheus metrics, served at GET /metrics. */
  metrics?: Metrics;
  /** Where list pages are read, when not on the main thread. */
  readers?: ReaderThreads;
}

type Env = AppEnv;

/** What /v1/auth/session (and a sign-in) tell the console about the caller, and where it links trace ids. */
function sessionBody(p: Principal, traceUrlTemplate?: string) {
  return {
    token: { id: p.tokenId, name: p.tokenName },
    user: { id: p.userId, display_name: p.userName, role: p.role },
    scopes: [...p.scopes],
    via: p.via,
    ...(traceUrlTemplate ? { trace_url_template: traceUrlTemplate } : {}),
  };
}


export function createApp(deps: AppDeps): Hono<Env> {
  const { config, store, logger, methodExecutor } = deps;
  const app = new Hono<Env>();

  app.use('*', requestFrame(logger));
  app.use('*', upgradesOnlyAtWebSocketPath());

  app.onError((err, c) => {
    const passing = retryableStoreError(deps.store, err);
    if (passing) return errorJson(c, passing.code);
    logger.error('unhandled route error', { correlation_id: c.get('correlationId'), error: err.message, stack: err.stack });
    return errorJson(c, 'INTERNAL', INTERNAL_MESSAGE);
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', (c) => {
    const resetting = deps.runtime.isResetting();
    const ready = deps.isReady() && !resetting;
    return c.json({ ready, ...(ready ? {} : { reason: resetting ? 'reset in progress' : 'starting' }) }, ready ? 200 : 503);
  });

  const audit = new AuditTrail(store, () => deps.runtime.serverId);
  const recordQuietly = (fact: AuditFact) =>
    audit.recordQuietly(fact, (error) =>
      logger.error('audit record not written', { correlation_id: fact.correlationId, method: fact.method, outcome: fact.outcome, error: error instanceof Error ? error.message : String(error) }),
    );
  const authenticated = requireAuth(store, audit, logger);
  const limitBody = bodyLimit(config.bodyLimitBytes);

  // Browser sign-in: trade a pasted token for an httpOnly session cookie (WebSockets cannot carry headers from a browser).
  app.post('/v1/auth/login', jsonOnly(), limitBody, async (c) => {
    if (!isSameOrigin({ origin: c.req.header('origin'), host: c.req.header('host'), protocol: protocolOf(c) })) {
      c.set('authFailure', 'sign-in from another origin');
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: sign-in must come from this origin', { reason: 'origin_mismatch' });
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return errorJson(c, 'PARSE_ERROR');
    }
    const secret = typeof body === 'object' && body !== null ? (body as { token?: unknown }).token : undefined;
    if (typeof secret !== 'string' || secret.trim().length === 0 || secret.length > 512) {
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: paste an access token', { reason: 'missing_token' });
    }
    const token = await store.tokens.verify(secret.trim());
    const signInFailed = (reason: string, actor?: AuditActor) =>
      recordQuietly({
        actor,
        channel: 'console',
        method: 'auth.sign_in_failed',
        params: { reason, presented_secret: presentedSecretFingerprint(secret.trim()) },
        outcome: 'UNAUTHENTICATED',
        correlationId: c.get('correlationId'),
      });
    if (!token) {
      c.set('authFailure', 'unknown or revoked token');
      await signInFailed('unknown_token');
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: that token is unknown or revoked', { reason: 'unknown_token' });
    }
    const principal = principalOf(token, 'cookie');
    if (!principal) {
      c.set('authFailure', 'the token belongs to a disabled user');
      await signInFailed('user_disabled', { userId: token.user.id, userName: token.user.display_name, tokenId: token.id });
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: the person this token belongs to is disabled', { reason: 'user_disabled' });
    }
    const session = await store.webSessions.create(token.id, SESSION_TTL_MS);
    setSessionCookie(c, session);
    c.set('principal', principal);
    await recordQuietly({ actor: actorOf(principal), channel: 'console', method: 'auth.sign_in', params: { via: 'token' }, outcome: 'ok', correlationId: c.get('correlationId') });
    return c.json({ ok: true, ...sessionBody(principal, config.traceUrlTemplate) });
  });

  app.post('/v1/auth/logout', async (c) => {
    // A cross-site form could otherwise end the operator's session.
    if (!isSameOrigin({ origin: c.req.header('origin'), host: c.req.header('host'), protocol: protocolOf(c) })) {
      c.set('authFailure', 'sign-out from another origin');
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: sign-out must come from this origin', { reason: 'origin_mismatch' });
    }
    const secret = getCookie(c, SESSION_COOKIE);
    let endSessionUrl: string | undefined;
    if (secret) {
      // Who is signing out, before the session that says so is gone.
      const signedIn = await authenticate(store, { cookie: c.req.header('cookie'), origin: c.req.header('origin'), host: c.req.header('host'), protocol: protocolOf(c) });
      endSessionUrl = await deps.oidc?.endSessionUrl(c, secret);
      await store.webSessions.destroy(secret);
      await recordQuietly({
        actor: signedIn.ok ? actorOf(signedIn.principal) : undefined,
        channel: 'console',
        method: 'auth.sign_out',
        params: signedIn.ok ? {} : { reason: 'session already ended' },
        outcome: 'ok',
        correlationId: c.get('correlationId'),
      });
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    const answer: SignOutAnswer = { ok: true, ...(endSessionUrl ? { end_session_url: endSessionUrl } : {}) };
    return c.json(answer);
  });

  // Read before sign-in: whether the console offers single sign-on, and how the button reads.
  app.get('/v1/auth/config', (c) => {
    const answer: AuthConfig = { oidc: deps.oidc?.authConfig() ?? null };
    return c.json(answer);
  });
  if (deps.oidc) app.route('/v1/auth/oidc', deps.oidc.routes());

  app.get('/v1/auth/session', authenticated, (c) => {
    return c.json(sessionBody(c.get('principal'), config.traceUrlTemplate));
  });

  app.get('/v1/openrpc.json', authenticated, (c) => c.json(openRpcDocument()));
  if (deps.metrics) app.get(METRICS_PATH, ...metricsHandlers({ store, logger, metrics: deps.metrics, serverId: () => deps.runtime.serverId }));

  const handleRpc = async (c: Context<Env>, pathMethod?: string) => {
    const correlationId = c.get('correlationId');
    const ctx: HandlerContext = {
      store,
      runtime: deps.runtime,
      config,
      logger,
      principal: c.get('principal'),
      correlationId,
      transport: 'http',
      ...(deps.readers ? { readers: deps.readers } : {}),
    };
    if (pathMethod) c.set('rpcMethod', pathMethod);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await c.req.text());
    } catch {
      return finish(c, errorResponse(null, new RpcError('PARSE_ERROR'), correlationId));
    }

    if (Array.isArray(parsed)) {
      if (pathMethod) {
        return finish(c, errorResponse(null, new RpcError('INVALID_REQUEST', 'Invalid Request: batches go to POST /v1/rpc, not the per-method path'), correlationId));
      }
      if (parsed.length === 0) return finish(c, errorResponse(null, new RpcError('INVALID_REQUEST', 'Invalid Request: empty batch'), correlationId));
      if (parsed.length > MAX_BATCH) {
        return finish(
          c,
          errorResponse(null, new RpcError('INVALID_REQUEST', `Invalid Request: a batch holds at most ${MAX_BATCH} requests`, { max: MAX_BATCH, got: parsed.length }), correlationId),
        );
      }
      c.set('rpcMethod', parsed.map(methodNameOf));
      const answers = await Promise.all(parsed.map((entry) => runOne(entry, ctx)));
      const responses = answers.filter((r): r is RpcResponse => r !== undefined);
      return finish(c, responses.length ? responses : undefined);
    }

    if (pathMethod && typeof parsed === 'object' && parsed !== null) {
      const body = parsed as Record<string, unknown>;
      if ('method' in body && body.method !== pathMethod) {
        const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
        return finish(
          c,
          errorResponse(
            id,
            new RpcError('INVALID_REQUEST', `Invalid Request: body method "${String(body.method).slice(0, 100)}" does not match the path method "${pathMethod}"`, {
              path_method: pathMethod,
            }),
            correlationId,
          ),
        );
      }
      parsed = { ...body, method: pathMethod };
    }
    c.set('rpcMethod', methodNameOf(parsed));
    return finish(c, await runOne(parsed, ctx));
  };

  const runOne = async (value: unknown, ctx: HandlerContext): Promise<RpcResponse | undefined> => {
    const read = readRequest(value);
    if (!read.ok) return errorResponse(read.id, read.error, ctx.correlationId);
    const { request } = read;
    const outcome = await methodExecutor.execute(request, ctx);
    if (request.notification) return undefined;
    if (outcome.error) return errorResponse(request.id, outcome.error, ctx.correlationId);
    return { jsonrpc: '2.0', id: request.id, result: outcome.result };
  };

  const finish = (c: Context<Env>, body: RpcResponse | RpcResponse[] | undefined) => {
    const list = body === undefined ? [] : Array.isArray(body) ? body : [body];
    const errors = list.flatMap((r) => ('error' in r ? [r.error.data.code] : []));
    c.set('outcome', errors.length === 0 ? 'ok' : [...new Set(errors)].join(','));
    if (body === undefined) return c.body(null, 204);
    // Not c.json: a plain header record is what @hono/node-server hands Node without copying.
    return new Response(answerText(body), { status: 200, headers: frameHeaders(c, 'application/json') });
  };

  // Authentication, the rate limit and the content type as checks in one middleware, in that
  // order: each further layer of Hono's chain is an async frame on every call.
  const unauthenticated = authRefusal(store, audit, logger);
  const overBudget = rateLimitRefusal(deps.limiter);
  const rpcGuard: MiddlewareHandler<Env> = async (c, next) => {
    const refused = (await unauthenticated(c)) ?? overBudget(c) ?? notJsonRefusal(c);
    if (refused) return refused;
    return limitBody(c, next);
  };
  app.post('/v1/rpc', rpcGuard, (c) => handleRpc(c));
  app.post('/v1/rpc/:method', rpcGuard, (c) => handleRpc(c, c.req.param('method')));
  const postOnly = (c: Context<Env>) => {
    c.header('Allow', 'POST');
    return errorJson(c, 'INVALID_REQUEST', 'JSON-RPC calls use POST', {}, 405);
  };
  app.all('/v1/rpc', postOnly);
  app.all('/v1/rpc/:method', postOnly);
  // GET so that the console downloads through a plain link (the session cookie), streamed by the browser.
  app.get('/v1/export/:list', authenticated, rateLimit(deps.limiter), exportRoute({ config, store, runtime: deps.runtime, logger, recordQuietly }));
  // Upgrade requests reach the app through websocket-upgrade.ts; an accepted one goes to the socket server.
  app.all(WEBSOCKET_PATH, upgradeRequired(), authenticated, acceptWebSocket(recordQuietly));
  app.all('/v1/*', (c) => errorJson(c, 'METHOD_NOT_FOUND', `No route ${c.req.method} ${c.req.path}`, {}, 404));

  serveConsole(app, config.webDist);
  return app;
}
