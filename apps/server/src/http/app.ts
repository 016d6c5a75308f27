/**
 * The Hono application: probes, browser sign-in, the JSON-RPC routes and the console's static
 * files. Routes only parse, authenticate and dispatch; methods do the work.
 */
import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { RpcError, errorRegistry, type ErrorCode } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { Store } from '@switchboard/store';
import type { Config } from '../config';
import { openRpcDocument } from '../openrpc-document';
import type { Logger } from '../logger';
import { MAX_BATCH, errorResponse, methodNameOf, readRequest, type RpcResponse } from '../rpc/envelope';
import type { Dispatcher } from '../rpc/dispatcher';
import type { HandlerContext, Principal } from '../rpc/handler';
import { SESSION_COOKIE, SESSION_TTL_MS, authenticate, isSameOrigin } from './authenticate';
import type { RateLimiter } from './rate-limiter';
import { serveConsole } from './console-static';

export interface AppDeps {
  config: Config;
  store: Store;
  runtime: Runtime;
  logger: Logger;
  dispatcher: Dispatcher;
  /** Whether the store is open and the bundle loaded (readiness). */
  isReady: () => boolean;
  /** Per-token request budget, shared with the WebSocket transport. */
  limiter: RateLimiter;
}

type Env = {
  Variables: {
    correlationId: string;
    principal: Principal;
    /** For the request's log line: the RPC method name(s) called, when known. */
    rpcMethod?: string | string[];
    /** For the request's log line: `ok`, or the error code(s) answered. */
    outcome?: string;
    /** For the request's log line: why authentication failed. */
    authFailure?: string;
  };
};

const CORRELATION_RE = /^[A-Za-z0-9._:-]{1,100}$/;
const INTERNAL_MESSAGE = 'Internal error; quote the correlation id when reporting it';


type Next = () => Promise<void>;

export function createApp(deps: AppDeps): Hono<Env> {
  const { config, store, logger, dispatcher } = deps;
  const app = new Hono<Env>();
  const { limiter } = deps;

  /** A JSON-RPC error body outside any request (auth, limits, routing), with the registry's HTTP status unless overridden. */
  const errorJson = (c: Context<Env>, code: ErrorCode, message?: string, details: Record<string, unknown> = {}, status?: number) => {
    const httpStatus = (status ?? errorRegistry[code].httpStatus) as ContentfulStatusCode;
    const body = errorResponse(null, new RpcError(code, message, details), c.get('correlationId'));
    if (httpStatus === 401) c.header('WWW-Authenticate', 'Bearer');
    c.set('outcome', code);
    return c.json(body, httpStatus);
  };

  app.use('*', async function correlationId(c, next) {
    const incoming = c.req.header('x-correlation-id');
    const id = incoming && CORRELATION_RE.test(incoming) ? incoming : randomUUID();
    c.set('correlationId', id);
    c.header('x-correlation-id', id);
    await next();
    c.res.headers.set('x-correlation-id', id);
  });

  // Exactly one line per request, written when the response is known; probes and console files only at debug level.
  app.use('*', async function accessLog(c, next) {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const api = c.req.path.startsWith('/v1/');
    logger.log(api ? 'info' : 'debug', 'request', {
      correlation_id: c.get('correlationId'),
      http_method: c.req.method,
      path: c.req.path,
      status,
      ...(c.get('rpcMethod') !== undefined ? { method: c.get('rpcMethod') } : {}),
      token_id: c.get('principal')?.tokenId ?? null,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      outcome: c.get('outcome') ?? (status < 400 ? 'ok' : `http_${status}`),
      ...(c.get('authFailure') ? { detail: c.get('authFailure') } : {}),
    });
  });

  app.onError((err, c) => {
    logger.error('unhandled route error', { correlation_id: c.get('correlationId'), error: err.message, stack: err.stack });
    return errorJson(c, 'INTERNAL', INTERNAL_MESSAGE);
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', (c) => {
    const resetting = deps.runtime.isResetting();
    const ready = deps.isReady() && !resetting;
    return c.json({ ready, ...(ready ? {} : { reason: resetting ? 'reset in progress' : 'starting' }) }, ready ? 200 : 503);
  });

  const protocolOf = (c: Context<Env>) => (c.req.header('x-forwarded-proto') === 'https' ? 'https' : new URL(c.req.url).protocol.replace(':', ''));

  const requireAuth = async (c: Context<Env>, next: Next) => {
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

  const jsonOnly = async (c: Context<Env>, next: Next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      return errorJson(c, 'INVALID_REQUEST', 'Content-Type must be application/json', { content_type: type || null }, 415);
    }
    await next();
  };

  const limitBody = bodyLimit({
    maxSize: config.bodyLimitBytes,
    onError: (c) => errorJson(c as Context<Env>, 'PAYLOAD_TOO_LARGE', `Request body is over the ${config.bodyLimitBytes}-byte limit`, { limit_bytes: config.bodyLimitBytes }),
  });

  // Browser sign-in: trade a pasted token for an httpOnly session cookie (WebSockets cannot carry headers from a browser).
  app.post('/v1/auth/login', jsonOnly, limitBody, async (c) => {
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
    if (!token) {
      c.set('authFailure', 'unknown or revoked token');
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: that token is unknown or revoked', { reason: 'unknown_token' });
    }
    const session = await store.webSessions.create(token.id, SESSION_TTL_MS);
    setCookie(c, SESSION_COOKIE, session.secret, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: protocolOf(c) === 'https',
      expires: session.expiresAt,
    });
    c.set('principal', { tokenId: token.id, tokenName: token.name, via: 'cookie' });
    return c.json({ ok: true, token: { id: token.id, name: token.name } });
  });

  app.post('/v1/auth/logout', async (c) => {
    const secret = getCookie(c, SESSION_COOKIE);
    if (secret) await store.webSessions.destroy(secret);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.json({ ok: true });
  });

  app.get('/v1/auth/session', requireAuth, (c) => {
    const p = c.get('principal');
    return c.json({ token: { id: p.tokenId, name: p.tokenName }, via: p.via });
  });

  app.get('/v1/openrpc.json', requireAuth, (c) => c.json(openRpcDocument()));

  const rateLimit = async (c: Context<Env>, next: Next) => {
    const wait = limiter.take(c.get('principal').tokenId);
    if (wait > 0) {
      c.header('Retry-After', String(Math.ceil(wait / 1000)));
      return errorJson(c, 'RATE_LIMITED', 'Rate limited; retry after details.retry_after_ms', { retry_after_ms: wait });
    }
    await next();
  };

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
    const outcome = await dispatcher.execute(request, ctx);
    if (request.notification) return undefined;
    if (outcome.error) return errorResponse(request.id, outcome.error, ctx.correlationId);
    return { jsonrpc: '2.0', id: request.id, result: outcome.result };
  };

  const finish = (c: Context<Env>, body: RpcResponse | RpcResponse[] | undefined) => {
    const list = body === undefined ? [] : Array.isArray(body) ? body : [body];
    const errors = list.flatMap((r) => ('error' in r ? [r.error.data.code] : []));
    c.set('outcome', errors.length === 0 ? 'ok' : [...new Set(errors)].join(','));
    if (body === undefined) return c.body(null, 204);
    return c.json(body, 200);
  };

  const rpcGuards = [requireAuth, rateLimit, jsonOnly, limitBody] as const;
  app.post('/v1/rpc', ...rpcGuards, (c) => handleRpc(c));
  app.post('/v1/rpc/:method', ...rpcGuards, (c) => handleRpc(c, c.req.param('method')));
  const postOnly = (c: Context<Env>) => {
    c.header('Allow', 'POST');
    return errorJson(c, 'INVALID_REQUEST', 'JSON-RPC calls use POST', {}, 405);
  };
  app.all('/v1/rpc', postOnly);
  app.all('/v1/rpc/:method', postOnly);
  // Upgrades are taken over by the WebSocket server before Hono sees them; a plain GET lands here.
  app.all('/v1/ws', (c) => errorJson(c, 'INVALID_REQUEST', '/v1/ws is a WebSocket endpoint: send an Upgrade request', {}, 426));
  app.all('/v1/*', (c) => errorJson(c, 'METHOD_NOT_FOUND', `No route ${c.req.method} ${c.req.path}`, {}, 404));

  serveConsole(app, config.webDist);
  return app;
}
