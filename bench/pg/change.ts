/** The change scenario: a publish on server A, timed until server B notifies it and lists it. */
import WebSocket from 'ws';
import { RpcClient } from '../rpc-client';
import type { Cluster } from './cluster';
import { CHANGE_SAMPLES, CHANGE_SPACING_MS, CHANGE_TIMEOUT_MS, LIST_POLL_MS, TOKEN, nowMs, percentile, sleep, type Engine } from './settings';

/** `runtime.changed` notifications on one WebSocket holding a heartbeat subscription. */
export class ChangeWatch {
  private readonly arrivals: { at: number; kinds: unknown }[] = [];
  private readonly waiting = new Set<() => void>();
  notifications = 0;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const at = nowMs();
      const message = JSON.parse(String(data)) as { method?: string; params?: { kinds?: unknown } };
      if (message.method !== 'runtime.changed') return;
      this.notifications++;
      this.arrivals.push({ at, kinds: message.params?.kinds });
      for (const wake of this.waiting) wake();
    });
  }

  static open(port: number): Promise<ChangeWatch> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ws`, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.subscribe' })));
      const onReply = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
        if (message.id !== 1) return;
        socket.off('message', onReply);
        if (message.error) reject(new Error(`health.subscribe: ${message.error.message}`));
        else resolve(new ChangeWatch(socket));
      };
      socket.on('message', onReply);
    });
  }

  /** When the first notification naming events arrived at or after `since`; undefined after `timeoutMs`. */
  async eventsChangedSince(since: number, timeoutMs: number): Promise<number | undefined> {
    const deadline = nowMs() + timeoutMs;
    for (;;) {
      const hit = this.arrivals.find((a) => a.at >= since && Array.isArray(a.kinds) && a.kinds.includes('events'));
      if (hit) return hit.at;
      const left = deadline - nowMs();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiting.add(wake);
      });
    }
  }

  close(): void {
    this.socket.terminate();
  }
}

export interface ChangeFigures {
  changed?: { p50: number; p99: number; missed: number };
  /** Why there is no runtime.changed figure. */
  changedUnavailable?: string;
  listed: { p50: number; p99: number; missed: number };
  samples: number;
}

/** Engines on which no runtime.changed came: later rounds do not wait for it again. */
export const changedUnavailable = new Map<Engine, string>();

export async function changeVisibility(c: Cluster, round: number): Promise<ChangeFigures> {
  const a = c.nodes[0]!;
  const b = c.nodes[c.nodes.length - 1]!;
  const poller = new RpcClient(b.port, TOKEN, 1);
  const watch = await ChangeWatch.open(b.port);
  const changed: number[] = [];
  const listed: number[] = [];
  let changedMissed = 0;
  let listedMissed = 0;
  try {
    for (let i = 0; i < CHANGE_SAMPLES; i++) {
      const entityId = `change-${c.engine}-${round}-${i}`;
      const startedAt = nowMs();
      const watching = !changedUnavailable.has(c.engine);
      const [, changedAt, listedAt] = await Promise.all([
        a.call('event.publish', { event_name: 'note', entity_id: entityId }),
        watching ? watch.eventsChangedSince(startedAt, CHANGE_TIMEOUT_MS) : undefined,
        pollUntilListed(poller, entityId, CHANGE_TIMEOUT_MS),
      ]);
      if (watching && changedAt === undefined && changed.length === 0) {
        changedUnavailable.set(
          c.engine,
          watch.notifications === 0
            ? `no runtime.changed arrived within ${CHANGE_TIMEOUT_MS / 1000} s (the feature is not on this branch)`
            : `${watch.notifications} runtime.changed arrived, none naming events within ${CHANGE_TIMEOUT_MS / 1000} s`,
        );
      } else if (watching && changedAt === undefined) changedMissed++;
      else if (changedAt !== undefined) changed.push(changedAt - startedAt);
      if (listedAt === undefined) listedMissed++;
      else listed.push(listedAt - startedAt);
      await sleep(Math.max(0, startedAt + CHANGE_SPACING_MS - nowMs()));
    }
  } finally {
    watch.close();
    poller.close();
  }
  const unavailable = changedUnavailable.get(c.engine);
  return {
    ...(unavailable && changed.length === 0 ? { changedUnavailable: unavailable } : { changed: { p50: percentile(changed, 50), p99: percentile(changed, 99), missed: changedMissed } }),
    listed: { p50: percentile(listed, 50), p99: percentile(listed, 99), missed: listedMissed },
    samples: CHANGE_SAMPLES,
  };
}

/** Reads event.list on one server every LIST_POLL_MS until it shows the entity's event; when it did (undefined after `timeoutMs`). */
export async function pollUntilListed(node: RpcClient, entityId: string, timeoutMs: number): Promise<number | undefined> {
  const deadline = nowMs() + timeoutMs;
  while (nowMs() < deadline) {
    const started = nowMs();
    const page = (await node.call('event.list', { filter: { entity_id: entityId }, limit: 1 })) as { events: unknown[] };
    if (page.events.length > 0) return nowMs();
    await sleep(Math.max(0, started + LIST_POLL_MS - nowMs()));
  }
  return undefined;
}
