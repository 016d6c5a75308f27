/**
 * The live heartbeat: one WebSocket per tab, one `health.subscribe`, renewed on every reconnect.
 * Components read it through `useHeartbeat()`; `heartbeatIndicator()` turns the raw state into the
 * one word an operator sees (healthy, degraded, down, reconnecting, stale).
 */
import { useSyncExternalStore } from 'react';
import type { HealthCheckResult } from '@switchboard/contract';
import { WsClient, consoleSocketUrl, type ConnectionState } from './ws-client';

export type IndicatorState = 'connecting' | 'healthy' | 'degraded' | 'down' | 'reconnecting' | 'stale';

export interface HeartbeatSnapshot {
  connection: ConnectionState;
  last: HealthCheckResult | null;
  /** Client clock (ms) when the last heartbeat arrived. */
  lastAt: number | null;
  /** Heartbeat interval, measured from the spacing of recent heartbeats. */
  intervalMs: number;
  latencyMs: number | null;
  attempts: number;
  nextRetryAt: number | null;
  /** True once no heartbeat arrived for two intervals. */
  stale: boolean;
  /** Bumped after a reconnect that followed an outage, so data can be refetched. */
  recoveries: number;
  /** The latest reset the server announced while this tab was connected. */
  lastReset: ResetNotice | null;
}

/** The `runtime.reset` notification every open console receives after a reset was applied. */
export interface ResetNotice {
  reset_id: string;
  status: string;
  finished_at: string;
  reason?: string;
  actor_token_id?: string;
}

const DEFAULT_INTERVAL_MS = 5000;
/** Heartbeats missed before the indicator turns stale, and before the socket is recycled. */
const STALE_AFTER_INTERVALS = 2;
const RECYCLE_AFTER_INTERVALS = 4;
/** Never recycle sooner than this: a busy server may pause heartbeats for a few seconds. */
const RECYCLE_MIN_MS = 10_000;

export function heartbeatIndicator(s: Pick<HeartbeatSnapshot, 'connection' | 'last' | 'stale'>): IndicatorState {
  if (s.connection === 'reconnecting') return 'reconnecting';
  if (s.connection !== 'open' || !s.last) return s.last ? 'reconnecting' : 'connecting';
  if (s.stale) return 'stale';
  if (s.last.status === 'ok') return 'healthy';
  return s.last.status;
}

/**
 * Mean spacing of the recent arrivals. The server sends at a fixed interval; a busy browser may
 * deliver two frames close together after a late one, which skews a median but not the mean.
 */
/**
 * The arrivals that measure the interval after one more heartbeat. The first heartbeat after a
 * subscribe answers it at once, off the server's beat: counting it would make the spacing to the
 * next tick (possibly a few ms) the interval, and a healthy connection would turn stale.
 */
export function withArrival(arrivals: number[], at: number, beatsSinceSubscribe: number): number[] {
  return beatsSinceSubscribe === 0 ? arrivals : [...arrivals.slice(-5), at];
}

export function measuredInterval(arrivals: number[], fallback: number): number {
  if (arrivals.length < 2) return fallback;
  return Math.max(100, Math.round((arrivals.at(-1)! - arrivals[0]!) / (arrivals.length - 1)));
}

class HeartbeatStore {
  private client: WsClient | null = null;
  private listeners = new Set<() => void>();
  private arrivals: number[] = [];
  private beatsSinceSubscribe = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private wasOpen = false;
  private openedAt = 0;
  private cleanups: (() => void)[] = [];
  private changeListeners = new Set<(kinds: string[]) => void>();
  snapshot: HeartbeatSnapshot = {
    connection: 'idle',
    last: null,
    lastAt: null,
    intervalMs: DEFAULT_INTERVAL_MS,
    latencyMs: null,
    attempts: 0,
    nextRetryAt: null,
    stale: false,
    recoveries: 0,
    lastReset: null,
  };

  start(): void {
    if (this.client) return;
    const client = new WsClient(consoleSocketUrl());
    this.client = client;
    this.cleanups.push(
      client.onState((connection) => {
        const recovered = connection === 'open' && this.wasOpen;
        if (connection === 'open') {
          this.wasOpen = true;
          this.openedAt = Date.now();
        }
        this.arrivals = connection === 'open' ? this.arrivals : [];
        this.update({
          connection,
          attempts: client.attempts,
          nextRetryAt: client.nextRetryAt,
          stale: connection === 'open' ? false : this.snapshot.stale,
          recoveries: this.snapshot.recoveries + (recovered ? 1 : 0),
        });
      }),
      client.onOpen(() => {
        this.arrivals = [];
        this.beatsSinceSubscribe = 0;
        const sentAt = performance.now();
        client
          .request('health.subscribe', {})
          .then(() => this.update({ latencyMs: Math.round(performance.now() - sentAt) }))
          .catch(() => client.reconnectNow());
      }),
      client.onNotification('runtime.reset', (params) => {
        const notice = params as ResetNotice | undefined;
        if (notice && typeof notice.reset_id === 'string') this.update({ lastReset: notice });
      }),
      client.onNotification('runtime.changed', (params) => {
        const kinds = (params as { kinds?: unknown } | undefined)?.kinds;
        if (!Array.isArray(kinds)) return;
        const named = kinds.filter((k): k is string => typeof k === 'string');
        this.changeListeners.forEach((l) => l(named));
      }),
      client.onNotification('health.heartbeat', (params) => {
        const result = (params as { result?: HealthCheckResult } | undefined)?.result;
        if (!result) return;
        const now = Date.now();
        this.arrivals = withArrival(this.arrivals, now, this.beatsSinceSubscribe++);
        this.update({ last: result, lastAt: now, stale: false, intervalMs: measuredInterval(this.arrivals, this.snapshot.intervalMs) });
        this.measureLatency();
      }),
    );
    this.timer = setInterval(() => this.checkStale(), 500);
    client.start();
  }

  stop(): void {
    this.cleanups.forEach((c) => c());
    this.cleanups = [];
    this.client?.stop();
    this.client = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.wasOpen = false;
    this.arrivals = [];
    this.update({ connection: 'idle', last: null, lastAt: null, latencyMs: null, stale: false });
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): HeartbeatSnapshot => this.snapshot;

  /**
   * Called with the kinds of each `runtime.changed` notice (records changed, on any server). Not
   * part of the snapshot: a change re-renders nothing by itself, the queries it touches do.
   */
  onChanged = (listener: (kinds: string[]) => void): (() => void) => {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  };

  private measureLatency(): void {
    const client = this.client;
    if (!client) return;
    const sentAt = performance.now();
    client
      .request('health.ping', {}, 5000)
      .then(() => this.update({ latencyMs: Math.round(performance.now() - sentAt) }))
      .catch(() => undefined);
  }

  private checkStale(): void {
    const { lastAt, intervalMs, connection, stale } = this.snapshot;
    if (connection !== 'open' || lastAt === null) return;
    // Count from the (re)connection too, so a fresh socket gets a full interval before it is called stale.
    const silentFor = Date.now() - Math.max(lastAt, this.openedAt);
    const nowStale = silentFor > STALE_AFTER_INTERVALS * intervalMs;
    if (nowStale !== stale) this.update({ stale: nowStale });
    // A socket that stays open but carries nothing is dead in practice (half-open TCP): start over.
    if (silentFor > Math.max(RECYCLE_MIN_MS, RECYCLE_AFTER_INTERVALS * intervalMs)) this.client?.reconnectNow();
  }

  private update(patch: Partial<HeartbeatSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch };
    this.listeners.forEach((l) => l());
  }
}

export const heartbeat = new HeartbeatStore();

export function useHeartbeat(): HeartbeatSnapshot {
  return useSyncExternalStore(heartbeat.subscribe, heartbeat.getSnapshot);
}

/** True while the data on screen may be out of date: heartbeats stale or the connection lost. */
export function useDataMayBeStale(): boolean {
  const s = useHeartbeat();
  const state = heartbeatIndicator(s);
  return state === 'stale' || (state === 'reconnecting' && s.lastAt !== null);
}
