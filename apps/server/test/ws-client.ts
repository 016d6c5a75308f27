/** A test WebSocket client for /v1/ws: JSON-RPC calls, collected notifications, and refused upgrades. */
import WebSocket, { type ClientOptions } from 'ws';
import type { heartbeatNotification, MethodName, ParamsInput, Result, RpcErrorObject } from '@switchboard/contract';
import type { z } from 'zod';
import type { RpcAnswer } from './harness';

export interface UpgradeRefusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function wsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws') + '/v1/ws';
}

/** Opens a socket, or resolves with the HTTP answer when the upgrade is refused (never 101). */
export function tryOpen(url: string, options: ClientOptions = {}): Promise<{ socket: WebSocket } | { refused: UpgradeRefusal }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ refused: { status: res.statusCode ?? 0, headers: res.headers, body } }));
    });
    socket.once('error', reject);
  });
}

/** A frame the server sent that answers no call of ours: a notification, or an answer to a raw frame. */
export interface WireFrame {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: { subscription_id?: string; [member: string]: unknown };
  result?: unknown;
  error?: RpcErrorObject;
}

export type HeartbeatFrame = z.output<typeof heartbeatNotification>;

export class RpcSocket {
  readonly notifications: WireFrame[] = [];
  private readonly pending = new Map<string | number, (frame: RpcAnswer<unknown>) => void>();
  private nextId = 1;
  private waiters: (() => void)[] = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as WireFrame & RpcAnswer<unknown>;
      if (!Array.isArray(frame) && frame.id !== undefined && frame.id !== null && this.pending.has(frame.id)) {
        this.pending.get(frame.id)!(frame);
        this.pending.delete(frame.id);
      } else {
        this.notifications.push(frame);
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, options: ClientOptions = {}): Promise<RpcSocket> {
    const outcome = await tryOpen(url, options);
    if ('refused' in outcome) throw new Error(`upgrade refused: ${outcome.refused.status} ${outcome.refused.body}`);
    return new RpcSocket(outcome.socket);
  }

  /** Sends one request of a contract method and resolves with its answer. */
  call<M extends MethodName>(method: M, params?: ParamsInput<M>): Promise<RpcAnswer<Result<M>>> {
    return this.callUnchecked(method, params) as Promise<RpcAnswer<Result<M>>>;
  }

  /** The same for what the contract would refuse (unknown methods, wrong params). */
  callUnchecked(method: string, params?: unknown): Promise<RpcAnswer<unknown>> {
    const id = `c${this.nextId++}`;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  /** Sends a raw text frame and resolves with the next frame that is not a notification. */
  sendRaw<Frame = WireFrame>(text: string): Promise<Frame> {
    const before = this.notifications.length;
    this.socket.send(text);
    return this.waitFor(() => this.notifications.slice(before).find((f) => f.method === undefined)).then((f) => {
      this.notifications.splice(this.notifications.indexOf(f), 1);
      return f as Frame;
    });
  }

  /** Resolves when `pick` returns something, checking after each frame. */
  async waitFor<T>(pick: () => T | undefined, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = pick();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a frame');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  heartbeats(subscriptionId: string): HeartbeatFrame[] {
    return this.notifications.filter((n) => n.method === 'health.heartbeat' && n.params?.subscription_id === subscriptionId) as HeartbeatFrame[];
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
