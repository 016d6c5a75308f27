/**
 * This process as a node of the store: a row with a heartbeat every `beatMs`, read by every other
 * node. A node whose heartbeat lapsed for `deadAfterMs` is dead, and only then is it taken over
 * (once, by whichever live node's conditional delete removes its row): its in-progress idempotency
 * claims are dropped and its delivery leases end at once. On a store only one process can open
 * (SQLite's folder lock), every other row left behind is dead at boot.
 */
import { hostname } from 'node:os';
import type { ServerNode } from '@switchboard/contract';
import type { NodeRow, NodeTakeover, Store, StoreTx } from '@switchboard/store';
import type { RuntimeLog } from '../runtime-log';

export interface NodeRegistryOptions {
  /** Heartbeat interval (1 s by default). */
  beatMs?: number;
  /** A node whose heartbeat is older than this is dead (5 s by default). */
  deadAfterMs?: number;
  /** Reported in health.check. */
  version?: string;
}

export const DEFAULT_NODE_BEAT_MS = 1_000;
export const DEFAULT_NODE_DEAD_AFTER_MS = 5_000;

export class NodeRegistry {
  readonly beatMs: number;
  readonly deadAfterMs: number;
  private readonly version: string;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private readonly takeoverListeners = new Set<(t: NodeTakeover) => void>();
  private readonly beatListeners = new Set<() => Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly log: RuntimeLog,
    readonly nodeId: string,
    private readonly inFlight: () => number,
    options: NodeRegistryOptions = {},
  ) {
    this.beatMs = options.beatMs ?? DEFAULT_NODE_BEAT_MS;
    this.deadAfterMs = options.deadAfterMs ?? DEFAULT_NODE_DEAD_AFTER_MS;
    this.version = options.version ?? '0.0.0';
  }

  /** Called with what a takeover released (after it committed). */
  onTakeover(listener: (t: NodeTakeover) => void): () => void {
    this.takeoverListeners.add(listener);
    return () => this.takeoverListeners.delete(listener);
  }

  /** Called after each heartbeat (periodic work that needs to know who is alive). */
  onBeat(listener: () => Promise<void>): () => void {
    this.beatListeners.add(listener);
    return () => this.beatListeners.delete(listener);
  }

  /** True when this node is the oldest live one (it supervises managed containers). */
  async supervises(): Promise<boolean> {
    return (await this.store.nodes.oldestLive(this.deadAfterMs)) === this.nodeId;
  }

  /** Registers this node and takes over the dead ones (at boot on SQLite: every other one). */
  async join(): Promise<void> {
    await this.store.nodes.register({ node_id: this.nodeId, host: hostname(), pid: process.pid, version: this.version }, this.inFlight());
    await this.reap(!this.store.capabilities.sharedByProcesses);
    // Claims written before nodes existed name none: safe to drop only with no other live node.
    if ((await this.store.nodes.live(this.deadAfterMs)).every((n) => n.node_id === this.nodeId)) await this.store.nodes.dropOrphanClaims();
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.beating = this.beat()
        .catch((err: Error) => void this.log.write({ level: 'warn', component: 'nodes', error_code: 'NODE_HEARTBEAT_FAILED', message: `node heartbeat failed: ${err.message}` }).catch(() => undefined))
        .finally(() => {
          this.beating = undefined;
          if (this.timer) this.timer = setTimeout(tick, this.beatMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.beatMs).unref();
  }

  /** Stops the heartbeat and removes this node's row: a clean stop leaves nothing to take over. */
  async leave(): Promise<void> {
    const t = this.timer;
    this.timer = undefined;
    clearTimeout(t);
    await this.beating;
    await this.store.nodes.remove(this.nodeId).catch(() => undefined);
  }

  /** Live nodes as health.check reports them. */
  async liveNodes(): Promise<ServerNode[]> {
    const rows = await this.store.nodes.live(this.deadAfterMs);
    return rows.map((r) => this.describe(r));
  }

  private describe(r: NodeRow): ServerNode {
    const self = r.node_id === this.nodeId;
    return {
      node_id: r.node_id,
      host: r.host,
      pid: Number(r.pid),
      version: r.version,
      started_at: r.started_at,
      last_seen_at: r.last_seen_at,
      in_flight_handlers: self ? this.inFlight() : Number(r.in_flight),
      self,
    };
  }

  private async beat(): Promise<void> {
    if (!(await this.store.nodes.beat(this.nodeId, this.inFlight()))) {
      // Another node judged this one dead (a pause longer than deadAfterMs) and took over its
      // leases: results of those deliveries will be discarded by their fencing. Come back.
      await this.log.write({
        level: 'warn',
        component: 'nodes',
        error_code: 'NODE_REJOINED',
        message: `node ${this.nodeId} was taken over after its heartbeat lapsed (${this.deadAfterMs} ms) and joins again`,
      });
      await this.store.nodes.register({ node_id: this.nodeId, host: hostname(), pid: process.pid, version: this.version }, this.inFlight());
    }
    await this.reap(false);
    for (const listener of this.beatListeners) await listener();
  }

  /** Runs in the transaction that declares a node dead (alerts notify with it). */
  declaredDead: ((tx: StoreTx, takeover: NodeTakeover) => Promise<void>) | undefined;

  /** Takes over every dead node this node wins; returns how many. */
  async reap(everyOther: boolean): Promise<number> {
    let taken = 0;
    for (const nodeId of await this.store.nodes.lapsed(this.deadAfterMs, this.nodeId, everyOther)) {
      // A takeover at boot of every other row (SQLite: one process) is no node dying.
      const alsoIn = everyOther ? undefined : this.declaredDead;
      const t = await this.store.nodes.takeOver(nodeId, this.deadAfterMs, this.store.clock.now().toISOString(), everyOther, alsoIn);
      if (!t) continue;
      taken++;
      await this.log.write({
        level: 'warn',
        component: 'nodes',
        error_code: 'NODE_TAKEN_OVER',
        message: `node ${nodeId} stopped sending heartbeats; ${this.nodeId} took over ${t.idempotency_claims} in-progress idempotency claim(s) and ${t.leases} delivery lease(s)`,
      });
      for (const listener of this.takeoverListeners) listener(t);
    }
    return taken;
  }
}
