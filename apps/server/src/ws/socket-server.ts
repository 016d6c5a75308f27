/**
 * GET /v1/ws: JSON-RPC over WebSocket, mainly for heartbeat subscriptions. Auth runs before the
 * upgrade (a failed check gets a plain HTTP 401, never a 101); the token is not re-checked for the
 * life of the connection, as the spec says. Dead peers are found with ping/pong and dropped.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { RpcError, errorRegistry, toErrorObject } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { Store } from '@switchboard/store';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { authenticate } from '../http/authenticate';
import { MAX_BATCH, errorResponse, readRequest, type RpcResponse } from '../rpc/envelope';
import type { Dispatcher } from '../rpc/dispatcher';
import type { HandlerContext, Principal, SocketSubscriptions } from '../rpc/handler';
import { computeHealth } from '../methods/health/check';

export interface SocketServerDeps {
  config: Config;
  store: Store;
  runtime: Runtime;
  logger: Logger;
  dispatcher: Dispatcher;
}

export interface SocketServer {
  close(): Promise<void>;
  connectionCount(): number;
}

function rejectUpgrade(socket: Duplex, status: number, code: keyof typeof errorRegistry, message: string): void {
  const correlationId = randomUUID();
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: toErrorObject(new RpcError(code, message), correlationId) });
  const reason = ({ 401: 'Unauthorized', 404: 'Not Found', 500: 'Internal Server Error' } as Record<number, string>)[status] ?? 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      (status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '') +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-correlation-id: ${correlationId}\r\nConnection: close\r\n\r\n` +
      body,
  );
}

export function attachSocketServer(server: Server, deps: SocketServerDeps): SocketServer {
  const { config, store, runtime, logger, dispatcher } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes });
  const alive = new WeakMap<WebSocket, boolean>();
  const cleanups = new Set<() => void>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/v1/ws') {
      rejectUpgrade(socket, 404, 'METHOD_NOT_FOUND', `No WebSocket endpoint at ${url.pathname}`);
      return;
    }
    authenticate(store, {
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
      origin: req.headers.origin,
      host: req.headers.host,
      protocol: req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http',
    })
      .then((outcome) => {
        if (!outcome.ok) {
          logger.info('ws upgrade refused', { reason: outcome.reason, status: 401 });
          rejectUpgrade(socket, 401, 'UNAUTHENTICATED', `Unauthenticated: ${outcome.reason}`);
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, outcome.principal));
      })
      .catch((err: Error) => {
        logger.error('ws upgrade failed', { error: err.message });
        rejectUpgrade(socket, 500, 'INTERNAL', 'Internal error');
      });
  });

  const onConnection = (ws: WebSocket, principal: Principal) => {
    const connectionId = randomUUID();
    const subscriptions = new Map<string, NodeJS.Timeout>();
    alive.set(ws, true);
    logger.info('ws connected', { connection_id: connectionId, token_id: principal.tokenId });

    const send = (frame: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    const beat = async (subscriptionId: string) => {
      try {
        const result = await computeHealth(store, runtime);
        send({ jsonrpc: '2.0', method: 'health.heartbeat', params: { subscription_id: subscriptionId, result } });
      } catch (err) {
        logger.error('heartbeat failed', { error: (err as Error).message });
      }
    };
    const socketSubs: SocketSubscriptions = {
      subscribe() {
        if (subscriptions.size >= config.maxSubscriptionsPerSocket) {
          throw new RpcError('INVALID_REQUEST', `At most ${config.maxSubscriptionsPerSocket} subscriptions per socket`, {
            limit: config.maxSubscriptionsPerSocket,
          });
        }
        const id = 'sub_' + randomUUID();
        subscriptions.set(id, setInterval(() => void beat(id), config.heartbeatIntervalMs));
        // The first heartbeat goes out right after the subscribe response.
        setImmediate(() => void beat(id));
        return id;
      },
      unsubscribe(id) {
        const timer = subscriptions.get(id);
        if (!timer) return false;
        clearInterval(timer);
        subscriptions.delete(id);
        return true;
      },
    };
    const cleanup = () => {
      for (const timer of subscriptions.values()) clearInterval(timer);
      subscriptions.clear();
    };
    cleanups.add(cleanup);

    const runOne = async (value: unknown, correlationId: string): Promise<RpcResponse | undefined> => {
      const read = readRequest(value);
      if (!read.ok) return errorResponse(read.id, read.error, correlationId);
      const ctx: HandlerContext = { store, runtime, config, logger, principal, correlationId, transport: 'ws', socket: socketSubs };
      const outcome = await dispatcher.execute(read.request, ctx);
      if (read.request.notification) return undefined;
      if (outcome.error) return errorResponse(read.request.id, outcome.error, correlationId);
      return { jsonrpc: '2.0', id: read.request.id, result: outcome.result };
    };

    ws.on('message', (data, isBinary) => {
      const correlationId = randomUUID();
      void (async () => {
        if (isBinary) {
          send(errorResponse(null, new RpcError('INVALID_REQUEST', 'Frames must be JSON text'), correlationId));
          return;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(data.toString());
        } catch {
          send(errorResponse(null, new RpcError('PARSE_ERROR'), correlationId));
          return;
        }
        if (Array.isArray(parsed)) {
          if (parsed.length === 0 || parsed.length > MAX_BATCH) {
            send(errorResponse(null, new RpcError('INVALID_REQUEST', parsed.length === 0 ? 'Invalid Request: empty batch' : `at most ${MAX_BATCH} per batch`), correlationId));
            return;
          }
          const answers = (await Promise.all(parsed.map((p) => runOne(p, correlationId)))).filter(Boolean);
          if (answers.length) send(answers);
          return;
        }
        const answer = await runOne(parsed, correlationId);
        if (answer) send(answer);
      })();
    });
    ws.on('pong', () => alive.set(ws, true));
    ws.on('close', () => {
      cleanup();
      cleanups.delete(cleanup);
      logger.info('ws closed', { connection_id: connectionId });
    });
    ws.on('error', (err) => logger.warn('ws error', { connection_id: connectionId, error: err.message }));
  };

  // A peer that missed a whole ping interval is gone (network cut, sleeping laptop): drop it.
  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, config.wsPingIntervalMs);
  pinger.unref();

  return {
    connectionCount: () => wss.clients.size,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(pinger);
        for (const c of cleanups) c();
        for (const ws of wss.clients) ws.close(1001, 'server shutting down');
        const hard = setTimeout(() => {
          for (const ws of wss.clients) ws.terminate();
        }, 1000);
        hard.unref();
        wss.close(() => resolve());
      }),
  };
}
