/**
 * WebSocket side of the API client: JSON-RPC requests and notifications over /v1/ws, with
 * reconnection (exponential backoff with jitter). The browser sends the session cookie on the
 * upgrade; subscriptions are the caller's to renew in `onOpen`, because a new socket starts empty.
 */
import type { MethodName, ParamsInput, Result, RpcErrorData } from '@switchboard/contract';
import { ApiError, NETWORK_ERROR } from './client';

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'reconnecting';

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/** Delay before reconnect attempt `attempt` (1-based): doubling, capped, with ±20% jitter so tabs do not stampede. */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const base = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  method: string;
}

type NotificationListener = (params: unknown) => void;

export class WsClient {
  private socket: WebSocket | null = null;
  private pending = new Map<string, Pending>();
  private notificationListeners = new Map<string, Set<NotificationListener>>();
  private stateListeners = new Set<(state: ConnectionState) => void>();
  private openListeners = new Set<() => void>();
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private nextId = 1;
  private running = false;
  state: ConnectionState = 'idle';
  /** Failed attempts since the last successful open. */
  attempts = 0;
  nextRetryAt: number | null = null;

  constructor(
    private readonly url: string,
    private readonly backoff: BackoffOptions = { initialMs: 500, maxMs: 5000 },
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, 'client stopped');
    this.failPending('The connection was closed');
    this.setState('idle');
  }

  /** Drops the current socket and reconnects at once (used when heartbeats stop arriving on an open socket). */
  reconnectNow(): void {
    if (!this.running) return;
    const socket = this.socket;
    this.socket = null;
    socket?.close(4000, 'heartbeat lost');
    this.failPending('The connection was reset');
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.connect();
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onOpen(listener: () => void): () => void {
    this.openListeners.add(listener);
    if (this.state === 'open') listener();
    return () => this.openListeners.delete(listener);
  }

  onNotification(method: string, listener: NotificationListener): () => void {
    let set = this.notificationListeners.get(method);
    if (!set) this.notificationListeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  request<M extends MethodName>(method: M, params: ParamsInput<M>, timeoutMs = 10_000): Promise<Result<M>> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ApiError(NETWORK_ERROR, 'Not connected to the server', { retryable: true, method }));
    }
    const id = `ws-${this.nextId++}`;
    return new Promise<Result<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError(NETWORK_ERROR, `No answer to ${method} within ${timeoutMs} ms`, { retryable: true, method }));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, method });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  private connect(): void {
    this.setState(this.attempts === 0 && this.state !== 'reconnecting' ? 'connecting' : 'reconnecting');
    this.nextRetryAt = null;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.attempts = 0;
      this.setState('open');
      this.openListeners.forEach((l) => l());
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket || typeof event.data !== 'string') return;
      this.handleFrame(event.data);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.failPending('The connection was lost');
      if (this.running) this.scheduleReconnect();
    };
    // An error is always followed by close, which is where reconnection happens.
    socket.onerror = () => undefined;
  }

  private scheduleReconnect(): void {
    this.attempts += 1;
    const delay = backoffDelay(this.attempts, this.backoff);
    this.nextRetryAt = Date.now() + delay;
    this.setState('reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.running) this.connect();
    }, delay);
  }

  private handleFrame(text: string): void {
    let frames: unknown;
    try {
      frames = JSON.parse(text);
    } catch {
      return;
    }
    for (const frame of Array.isArray(frames) ? frames : [frames]) {
      if (typeof frame !== 'object' || frame === null) continue;
      const msg = frame as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { message: string; data?: RpcErrorData } };
      if (typeof msg.method === 'string' && msg.id === undefined) {
        this.notificationListeners.get(msg.method)?.forEach((l) => l(msg.params));
        continue;
      }
      if (typeof msg.id !== 'string') continue;
      const pending = this.pending.get(msg.id);
      if (!pending) continue;
      this.pending.delete(msg.id);
      clearTimeout(pending.timer);
      if (msg.error) {
        const data = msg.error.data;
        pending.reject(
          new ApiError(data?.code ?? 'INTERNAL', msg.error.message, {
            details: data?.details,
            retryable: data?.retryable,
            correlationId: data?.correlation_id,
            method: pending.method,
          }),
        );
      } else {
        pending.resolve(msg.result);
      }
    }
  }

  private failPending(message: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ApiError(NETWORK_ERROR, message, { retryable: true, method: p.method }));
      this.pending.delete(id);
    }
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.stateListeners.forEach((l) => l(state));
  }
}

export function consoleSocketUrl(location: Location = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/ws`;
}
