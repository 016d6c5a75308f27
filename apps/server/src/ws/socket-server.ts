/**
 * JSON-RPC over the WebSocket, mainly for heartbeat subscriptions: the connections the /v1/ws
 * route accepted (http/websocket-upgrade.ts authenticates them first), their subscriptions and
 * backpressure. Dead peers are found with ping/pong and dropped.
 *
 * A client that does not read its answers cannot make the server buffer without bound: past
 * `wsMaxBufferedBytes` of unsent data the server stops reading that socket's requests (and skips
 * its heartbeats) until it has caught up, and past four times that it closes the socket with
 * 1008 "client not reading". So a socket holds at most 4x the limit plus one answer.
 *
 * Frames a socket already sent wait their turn: at most `MAX_FRAMES_IN_FLIGHT` are answered at
 * once, none starts while the socket's reading is paused, and those still waiting when it closes
 * are dropped. Otherwise every frame that arrived before the first answer went out was worked out
 * in full, for a client that would never read the answers.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { RpcError } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { ChangeListener, Store } from '@switchboard/store';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { RateLimiter } from '../http/rate-limiter';
import { MAX_BATCH, errorResponse, methodNameOf, readRequest, type RpcResponse } from '../rpc/envelope';
import type { MethodExecutor } from '../rpc/method-executor';
import type { HandlerContext, Principal, SocketSubscriptions } from '../rpc/handler';
import { computeHealth } from '../methods/health/check';
import { HeartbeatBroadcast } from './heartbeat-broadcast';
import { ChangeNotices } from './change-notices';
import type { ReaderThreads } from '../reads/reader-threads';

export interface SocketServerDeps {
  config: Config;
  store: Store;
  runtime: Runtime;
  logger: Logger;
  methodExecutor: MethodExecutor;
  /** The change feed as this process follows it: live updates and other servers' resets. */
  changes: ChangeListener;
  /** Shared with HTTP so a token's budget covers both transports. */
  limiter?: RateLimiter;
  /** Where list pages are read, when not on the main thread. */
  readers?: ReaderThreads;
}

export interface SocketServer {
  /** Completes the upgrade of a request the /v1/ws route accepted for `principal`. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, principal: Principal): void;
  close(): Promise<void>;
  connectionCount(): number;
  /** Live heartbeat subscriptions across all sockets. */
  subscriptionCount(): number;
  /** Answers written but not yet sent, over all sockets. */
  bufferedBytes(): number;
}

/** Close code for a socket whose unsent answers passed the hard bound. */
export const CLOSE_NOT_READING = 1008;
const RESUME_POLL_MS = 50;
/** Frames of one socket answered at once; its later frames wait (a frame may be a whole batch). */
export const MAX_FRAMES_IN_FLIGHT = 4;

export function createSocketServer(deps: SocketServerDeps): SocketServer {
  const { config, store, runtime, logger, methodExecutor, limiter, changes, readers } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.bodyLimitBytes });
  const alive = new WeakMap<WebSocket, boolean>();
  const cleanups = new Set<() => void>();
  const heartbeats = new HeartbeatBroadcast(() => computeHealth(store, runtime), config.heartbeatIntervalMs, config.wsMaxBufferedBytes, logger);
  const notices = new ChangeNotices({ store, runtime, heartbeats, logger });
  notices.start(changes);

  const onConnection = (ws: WebSocket, principal: Principal) => {
    const connectionId = randomUUID();
    const subscriptions = new Set<string>();
    alive.set(ws, true);
    logger.info('ws connected', { connection_id: connectionId, token_id: principal.tokenId });

    const maxBuffered = config.wsMaxBufferedBytes;
    /** Frames received and not yet started, oldest first. */
    const waitingFrames: (() => Promise<void>)[] = [];
    let framesInFlight = 0;
    const startWaitingFrames = () => {
      while (framesInFlight < MAX_FRAMES_IN_FLIGHT && waitingFrames.length > 0 && !ws.isPaused && ws.readyState === ws.OPEN) {
        framesInFlight += 1;
        void waitingFrames
          .shift()!()
          .catch((err: unknown) => logger.error('ws frame failed', { connection_id: connectionId, error: err instanceof Error ? err.message : String(err) }))
          .finally(() => {
            framesInFlight -= 1;
            startWaitingFrames();
          });
      }
    };
    let resumePoll: NodeJS.Timeout | undefined;
    const resumeWhenCaughtUp = () => {
      if (ws.readyState !== ws.OPEN || ws.bufferedAmount > maxBuffered / 2) return;
      clearInterval(resumePoll);
      resumePoll = undefined;
      ws.resume();
      startWaitingFrames();
    };
    const send = (frame: unknown) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > maxBuffered * 4) {
        logger.warn('ws closed: client not reading', { connection_id: connectionId, buffered_bytes: ws.bufferedAmount });
        ws.close(CLOSE_NOT_READING, 'client not reading: too many unsent answers');
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify(frame));
      if (ws.bufferedAmount > maxBuffered && !ws.isPaused) {
        ws.pause();
        logger.info('ws reading paused', { connection_id: connectionId, buffered_bytes: ws.bufferedAmount });
        resumePoll = setInterval(resumeWhenCaughtUp, RESUME_POLL_MS);
        resumePoll.unref();
      }
    };
    const socketSubs: SocketSubscriptions = {
      subscribe() {
        // A subscribe still in flight when the socket closed must not leave a timer behind.
        if (ws.readyState !== ws.OPEN) throw new RpcError('INVALID_REQUEST', 'The socket is closing');
        if (subscriptions.size >= config.maxSubscriptionsPerSocket) {
          throw new RpcError('INVALID_REQUEST', `At most ${config.maxSubscriptionsPerSocket} subscriptions per socket`, {
            limit: config.maxSubscriptionsPerSocket,
          });
        }
        const id = 'sub_' + randomUUID();
        subscriptions.add(id);
        heartbeats.add(id, ws);
        return id;
      },
      unsubscribe(id) {
        if (!subscriptions.delete(id)) return false;
        heartbeats.remove(id);
        return true;
      },
    };
    const cleanup = () => {
      clearInterval(resumePoll);
      waitingFrames.length = 0;
      for (const id of subscriptions) heartbeats.remove(id);
      subscriptions.clear();
    };
    cleanups.add(cleanup);

    const runOne = async (value: unknown, correlationId: string): Promise<RpcResponse | undefined> => {
      const read = readRequest(value);
      if (!read.ok) return errorResponse(read.id, read.error, correlationId);
      const ctx: HandlerContext = { store, runtime, config, logger, principal, correlationId, transport: 'ws', socket: socketSubs, ...(readers ? { readers } : {}) };
      const outcome = await methodExecutor.execute(read.request, ctx);
      if (read.request.notification) return undefined;
      if (outcome.error) return errorResponse(read.request.id, outcome.error, correlationId);
      return { jsonrpc: '2.0', id: read.request.id, result: outcome.result };
    };

    /** Answers one frame; returns what went out, for the frame's log line. */
    const answerFrame = async (data: RawData, isBinary: boolean, correlationId: string): Promise<{ names: string[]; body?: RpcResponse | RpcResponse[] }> => {
      if (isBinary) return { names: [], body: errorResponse(null, new RpcError('INVALID_REQUEST', 'Invalid Request: frames must be JSON text'), correlationId) };
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        return { names: [], body: errorResponse(null, new RpcError('PARSE_ERROR'), correlationId) };
      }
      if (Array.isArray(parsed)) {
        if (parsed.length === 0 || parsed.length > MAX_BATCH) {
          const message = parsed.length === 0 ? 'Invalid Request: empty batch' : `Invalid Request: a batch holds at most ${MAX_BATCH} requests`;
          return { names: [], body: errorResponse(null, new RpcError('INVALID_REQUEST', message, parsed.length ? { max: MAX_BATCH, got: parsed.length } : {}), correlationId) };
        }
        const answers = (await Promise.all(parsed.map((p) => runOne(p, correlationId)))).filter((a): a is RpcResponse => a !== undefined);
        return { names: parsed.map(methodNameOf), ...(answers.length ? { body: answers } : {}) };
      }
      const answer = await runOne(parsed, correlationId);
      return { names: [methodNameOf(parsed)], ...(answer ? { body: answer } : {}) };
    };

    ws.on('message', (data, isBinary) => {
      const correlationId = randomUUID();
      const started = performance.now();
      waitingFrames.push(async () => {
        const wait = limiter?.take(principal.tokenId) ?? 0;
        const { names, body } =
          wait > 0
            ? { names: [], body: errorResponse(null, new RpcError('RATE_LIMITED', 'Rate limited; retry after details.retry_after_ms', { retry_after_ms: wait }), correlationId) }
            : await answerFrame(data, isBinary, correlationId);
        if (body) send(body);
        const list = body === undefined ? [] : Array.isArray(body) ? body : [body];
        const errors = [...new Set(list.flatMap((r) => ('error' in r ? [r.error.data.code] : [])))];
        logger.info('ws frame', {
          correlation_id: correlationId,
          connection_id: connectionId,
          method: names.length === 1 ? names[0] : names,
          token_id: principal.tokenId,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          outcome: errors.length ? errors.join(',') : 'ok',
        });
      });
      startWaitingFrames();
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
    accept: (req, socket, head, principal) => wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, principal)),
    connectionCount: () => wss.clients.size,
    subscriptionCount: () => heartbeats.size,
    bufferedBytes: () => [...wss.clients].reduce((n, ws) => n + ws.bufferedAmount, 0),
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(pinger);
        void notices.stop();
        for (const c of cleanups) c();
        heartbeats.stop();
        for (const ws of wss.clients) ws.close(1001, 'server shutting down');
        const hard = setTimeout(() => {
          for (const ws of wss.clients) ws.terminate();
        }, 1000);
        hard.unref();
        wss.close(() => resolve());
      }),
  };
}
