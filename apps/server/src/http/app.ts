/**
 * The Hono application: probes, browser sign-in, the JSON-RPC routes and the console's static
 * files. Routes only parse, authenticate and dispatch; methods do the work.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { RpcError, buildOpenRpcDocument, errorRegistry, methods, type ErrorCode } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { Store } from '@switchboard/store';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { MAX_BATCH, errorResponse, readRequest, type RpcResponse } from '../rpc/envelope';
import type { Dispatcher } from '../rpc/dispatcher';
import type { HandlerContext, Principal } from '../rpc/handler';
import { SESSION_COOKIE, SESSION_TTL_MS, authenticate, isSameOrigin } from './authenticate';
import { RateLimiter } from './rate-limiter';
import { serveConsole } from './console-static';

export interface AppDeps {
  config: Config;
  store: Store;
  runtime: Runtime;
  logger: Logger;
  dispatcher: Dispatcher;
  /** Whether the store is open and the bundle loaded (readiness). */
  isReady: () => boolean;
}

type Env = { Variables: { correlationId: string; principal: Principal } };

const CORRELATION_RE = /^[A-Za-z0-9._:-]{1,100}$/;

export function openRpcDocument(): Record<string, unknown> {
  return buildOpenRpcDocument(methods, {
    title: 'Switchboard Runtime Control API',
    version: '1.0.0',
    description: 'JSON-RPC 2.0 control and inspection API of an event-driven agent runtime.',
  });
}

export function createApp(deps: AppDeps): Hono<Env> {
  const { config, store, logger, dispatcher } = deps;
  const app = new Hono<Env>();
  const limiter = new RateLimiter(config.rateLimitPerSecond);

  const errorJson = (c: Context<Env>, code: ErrorCode, message?: string, details: Record<string, unknown> = {}) => {
    const status = errorRegistry[code].httpStatus as 200 | 401 | 413 | 415 | 429;
    const body = errorResponse(null, new RpcError(code, message, details), c.get('correlationId'));
    if (status === 401) c.header('WWW-Authenticate', 'Bearer');
    return c.json(body, status);
  };

  app.use('*', async function correlationId(c, next) {
    const incoming = c.req.header('x-correlation-id');
    const id = incoming && CORRELATION_RE.test(incoming) ? incoming : randomUUID();
    c.set('correlationId', id);
    c.header('x-correlation-id', id);
    await next();
    c.res.headers.set('x-correlation-id', id);
  });

  app.onError((err, c) => {
    logger.error('unhandled route error', { correlation_id: c.get('correlationId'), error: err.message, stack: err.stack });
    return errorJson(c, 'INTERNAL', 'Internal error; quote the correlation id when reporting it');
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/readyz', (c) => {
    const resetting = deps.runtime.isResetting();
    const ready = deps.isReady() && !resetting;
    return c.json({ ready, ...(ready ? {} : { reason: resetting ? 'reset in progress' : 'starting' }) }, ready ? 200 : 503);
  });

  const protocolOf = (c: Context<Env>) => (c.req.header('x-forwarded-proto') === 'https' ? 'https' : new URL(c.req.url).protocol.replace(':', ''));

  const requireAuth = async (c: Context<Env>, next: () => Promise<void>) => {
    const outcome = await authenticate(store, {
      authorization: c.req.header('authorization'),
      cookie: c.req.header('cookie'),
      origin: c.req.header('origin'),
      host: c.req.header('host'),
      protocol: protocolOf(c),
    });
    if (!outcome.ok) {
      logger.info('rpc', { correlation_id: c.get('correlationId'), path: c.req.path, outcome: 'UNAUTHENTICATED', status: 401, detail: outcome.reason });
      return errorJson(c, 'UNAUTHENTICATED', `Unauthenticated: ${outcome.reason}`);
    }
    c.set('principal', outcome.principal);
    await next();
  };

  // Browser sign-in: trade a pasted token for an httpOnly session cookie (WebSockets cannot carry headers from a browser).
  app.post('/v1/auth/login', async (c) => {
    if (!isSameOrigin({ origin: c.req.header('origin'), host: c.req.header('host'), protocol: protocolOf(c) })) {
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: sign-in must come from this origin', { reason: 'origin_mismatch' });
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return errorJson(c, 'PARSE_ERROR');
    }
    const secret = typeof body === 'object' && body !== null ? (body as { token?: unknown }).token : undefined;
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > 512) {
      return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: paste an access token');
    }
    const token = await store.tokens.verify(secret.trim());
    if (!token) return errorJson(c, 'UNAUTHENTICATED', 'Unauthenticated: that token is unknown or revoked');
    const session = await store.webSessions.create(token.id, SESSION_TTL_MS);
    setCookie(c, SESSION_COOKIE, session.secret, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: protocolOf(c) === 'https',
      expires: session.expiresAt,
    });
    logger.info('login', { correlation_id: c.get('correlationId'), token_id: token.id });
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

  const rpcGuards = [
    requireAuth,
    async function rateLimit(c: Context<Env>, next: () => Promise<void>) {
      const wait = limiter.take(c.get('principal').tokenId);
      if (wait > 0) {
        c.header('Retry-After', String(Math.ceil(wait / 1000)));
        return errorJson(c, 'RATE_LIMITED', 'Rate limited; retry after details.retry_after_ms', { retry_after_ms: wait });
      }
      await next();
    },
    async function jsonOnly(c: Context<Env>, next: () => Promise<void>) {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        c.status(415);
        return c.json(errorResponse(null, new RpcError('INVALID_REQUEST', 'Content-Type must be application/json', { content_type: type || null }), c.get('correlationId')), 415);
      }
      await next();
    },
    bodyLimit({
      maxSize: config.bodyLimitBytes,
      onError: (c) => errorJson(c as Context<Env>, 'PAYLOAD_TOO_LARGE', `Request body is over the ${config.bodyLimitBytes}-byte limit`, { limit_bytes: config.bodyLimitBytes }),
    }),
  ] as const;

  const handleRpc = async (c: Context<Env>, pathMethod?: string) => {
    const started = performance.now();
    const correlationId = c.get('correlationId');
    const principal = c.get('principal');
    const ctx: HandlerContext = {
      store,
      runtime: deps.runtime,
      config,
      logger,
      principal,
      correlationId,
      transport: 'http',
    };
    const text = await c.req.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return finish(c, errorResponse(null, new RpcError('PARSE_ERROR'), correlationId), ['(parse error)'], started);
    }

    if (Array.isArray(parsed)) {
      if (pathMethod) {
        return finish(c, errorResponse(null, new RpcError('INVALID_REQUEST', 'Batches go to POST /v1/rpc, not the per-method path'), correlationId), [pathMethod], started);
      }
      if (parsed.length === 0) return finish(c, errorResponse(null, new RpcError('INVALID_REQUEST', 'Invalid Request: empty batch'), correlationId), ['(batch)'], started);
      if (parsed.length > MAX_BATCH) {
        return finish(c, errorResponse(null, new RpcError('INVALID_REQUEST', `Invalid Request: a batch holds at most ${MAX_BATCH} requests`, { max: MAX_BATCH }), correlationId), ['(batch)'], started);
      }
      const answers = await Promise.all(parsed.map((entry) => runOne(entry, ctx)));
      const responses = answers.filter((r): r is RpcResponse => r !== undefined);
      const names = parsed.map((p) => (typeof p?.method === 'string' ? p.method : '(invalid)'));
      return finish(c, responses.length ? responses : undefined, names, started);
    }

    if (pathMethod && typeof parsed === 'object' && parsed !== null) {
      const body = parsed as Record<string, unknown>;
      if ('method' in body && body.method !== pathMethod) {
        const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
        return finish(c, errorResponse(id, new RpcError('INVALID_REQUEST', `Invalid Request: body method "${String(body.method)}" does not match the path method "${pathMethod}"`), correlationId), [pathMethod], started);
      }
      parsed = { ...body, method: pathMethod };
    }
    const answer = await runOne(parsed, ctx);
    return finish(c, answer, [typeof (parsed as { method?: unknown })?.method === 'string' ? (parsed as { method: string }).method : '(invalid)'], started);
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

  const finish = (c: Context<Env>, body: RpcResponse | RpcResponse[] | undefined, names: string[], started: number) => {
    const list = body === undefined ? [] : Array.isArray(body) ? body : [body];
    const errors = list.flatMap((r) => ('error' in r ? [r.error.data.code] : []));
    logger.info('rpc', {
      correlation_id: c.get('correlationId'),
      method: names.length === 1 ? names[0] : names,
      token_id: c.get('principal')?.tokenId,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      outcome: errors.length === 0 ? 'ok' : errors.join(','),
      status: body === undefined ? 204 : 200,
    });
    if (body === undefined) return c.body(null, 204);
    return c.json(body, 200);
  };

  app.post('/v1/rpc', ...rpcGuards, (c) => handleRpc(c));
  app.post('/v1/rpc/:method', ...rpcGuards, (c) => handleRpc(c, c.req.param('method')));
  app.all('/v1/*', (c) => errorJson(c, 'METHOD_NOT_FOUND', `No route ${c.req.method} ${c.req.path}`));

  serveConsole(app, config.webDist);
  return app;
}

export function webDistExists(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'index.html'));
}
