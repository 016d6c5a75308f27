/**
 * Heartbeats for every subscription of the process from one timer: one health.check per tick,
 * encoded once, each frame that one encoding with only the subscription id spliced in. Ticks are
 * aligned to the interval (wall-clock multiples), so all subscribers beat together. A socket that
 * is behind (more than `maxBufferedBytes` unsent) skips the tick instead of queueing it.
 */
import type { WebSocket } from 'ws';
import type { Logger } from '../logger';

interface Subscriber {
  socket: WebSocket;
}

export class HeartbeatBroadcast {
  private readonly subscribers = new Map<string, Subscriber>();
  private timer: NodeJS.Timeout | undefined;
  private latest: { encoded: string; at: number } | undefined;
  private computing: Promise<string> | undefined;

  constructor(
    private readonly computeHealth: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly maxBufferedBytes: number,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** Starts beating for a subscription; its first heartbeat goes out right after the subscribe answer. */
  add(subscriptionId: string, socket: WebSocket): void {
    this.subscribers.set(subscriptionId, { socket });
    if (!this.timer) this.scheduleTick();
    setImmediate(() => void this.first(subscriptionId));
  }

  /** Ends a subscription; false when there was none. Final: no heartbeat follows it. */
  remove(subscriptionId: string): boolean {
    const removed = this.subscribers.delete(subscriptionId);
    if (this.subscribers.size === 0) this.stop();
    return removed;
  }

  /**
   * A notification to every socket holding a subscription, once per socket (not per
   * subscription): how a reset or a change reaches every open console at once. With `skipBehind`,
   * a socket that is behind skips it, as it skips a heartbeat (for hints that a later one repeats).
   */
  notifyAll(method: string, params: unknown, options: { skipBehind?: boolean } = {}): void {
    const frame = JSON.stringify({ jsonrpc: '2.0', method, params });
    const sockets = new Set([...this.subscribers.values()].map((s) => s.socket));
    for (const socket of sockets) {
      if (socket.readyState !== socket.OPEN) continue;
      if (options.skipBehind && socket.bufferedAmount > this.maxBufferedBytes) continue;
      socket.send(frame);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private scheduleTick(): void {
    const delay = this.intervalMs - (Date.now() % this.intervalMs);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const encoded = await this.fresh();
      for (const id of this.subscribers.keys()) this.send(id, encoded);
    } catch (err) {
      this.logger.error('heartbeat failed', { error: (err as Error).message });
    } finally {
      if (this.subscribers.size > 0) this.scheduleTick();
      else this.timer = undefined;
    }
  }

  private async first(subscriptionId: string): Promise<void> {
    try {
      // A burst of subscribes shares one check; a result from the last second is recent enough.
      const recent = this.latest && Date.now() - this.latest.at < Math.min(this.intervalMs, 1000) ? this.latest.encoded : await this.fresh();
      this.send(subscriptionId, recent);
    } catch (err) {
      this.logger.error('heartbeat failed', { error: (err as Error).message });
    }
  }

  /** One health check at a time, shared by everyone waiting for it. */
  private fresh(): Promise<string> {
    this.computing ??= this.computeHealth()
      .then((result) => {
        const encoded = JSON.stringify(result);
        this.latest = { encoded, at: Date.now() };
        return encoded;
      })
      .finally(() => (this.computing = undefined));
    return this.computing;
  }

  private send(subscriptionId: string, encodedResult: string): void {
    const subscriber = this.subscribers.get(subscriptionId);
    if (!subscriber) return;
    const { socket } = subscriber;
    if (socket.readyState !== socket.OPEN || socket.bufferedAmount > this.maxBufferedBytes) return;
    socket.send(`{"jsonrpc":"2.0","method":"health.heartbeat","params":{"subscription_id":${JSON.stringify(subscriptionId)},"result":${encodedResult}}}`);
  }
}
