/**
 * This process as a server of the store: a row with a heartbeat every `beatMs`, read by every other
 * server. A server whose heartbeat lapsed for `deadAfterMs` is dead, and only then is it taken over
 * (once, by whichever live server's conditional delete removes its row): its in-progress idempotency
 * claims are dropped and its delivery leases end at once. On a store only one process can open
 * (SQLite's folder lock), every other row left behind is dead at boot.
 */
import { hostname } from 'node:os';
import type { ServerProcess } from '@switchboard/contract';
import type { ServerRow, ServerTakeover, Store, StoreTx } from '@switchboard/store';
import type { RuntimeLog } from '../runtime-log';

export interface ServerRegistryOptions {
  /** Heartbeat interval (1 s by default). */
  beatMs?: number;
  /** A server whose heartbeat is older than this is dead (5 s by default). */
  deadAfterMs?: number;
  /** Reported in health.check. */
  version?: string;
}

export const DEFAULT_SERVER_BEAT_MS = 1_000;
export const DEFAULT_SERVER_DEAD_AFTER_MS = 5_000;

export class ServerRegistry {
  readonly beatMs: number;
  readonly deadAfterMs: number;
  private readonly version: string;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private readonly takeoverListeners = new Set<(t: ServerTakeover) => void>();
  private readonly beatListeners = new Set<() => Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly log: RuntimeLog,
    readonly serverId: string,
    private readonly inFlight: () => number,
    options: ServerRegistryOptions = {},
  ) {
    this.beatMs = options.beatMs ?? DEFAULT_SERVER_BEAT_MS;
    this.deadAfterMs = options.deadAfterMs ?? DEFAULT_SERVER_DEAD_AFTER_MS;
    this.version = options.version ?? '0.0.0';
  }

  /** Called with what a takeover released (after it committed). */
  onTakeover(listener: (t: ServerTakeover) => void): () => void {
    this.takeoverListeners.add(listener);
    return () => this.takeoverListeners.delete(listener);
  }

  /** Called after each heartbeat (periodic work that needs to know who is alive). */
  onBeat(listener: () => Promise<void>): () => void {
    this.beatListeners.add(listener);
    return () => this.beatListeners.delete(listener);
  }

  /** True when this server is the oldest live one (it supervises managed containers). */
  async supervises(): Promise<boolean> {
    return (await this.store.servers.oldestLive(this.deadAfterMs)) === this.serverId;
  }

  /** Registers this server and takes over the dead ones (at boot on SQLite: every other one). */
  async join(): Promise<void> {
    await this.store.servers.register({ server_id: this.serverId, host: hostname(), pid: process.pid, version: this.version }, this.inFlight());
    await this.reap(!this.store.capabilities.sharedByProcesses);
    // Claims written before servers existed name none: safe to drop only with no other live server.
    if ((await this.store.servers.live(this.deadAfterMs)).every((n) => n.server_id === this.serverId)) await this.store.servers.dropOrphanClaims();
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.beating = this.beat()
        .catch((err: Error) => void this.log.write({ level: 'warn', component: 'servers', error_code: 'SERVER_HEARTBEAT_FAILED', message: `server heartbeat failed: ${err.message}` }).catch(() => undefined))
        .finally(() => {
          this.beating = undefined;
          if (this.timer) this.timer = setTimeout(tick, this.beatMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.beatMs).unref();
  }

  /** Stops the heartbeat and removes this server's row: a clean stop leaves nothing to take over. */
  async leave(): Promise<void> {
    const t = this.timer;
    this.timer = undefined;
    clearTimeout(t);
    await this.beating;
    await this.store.servers.remove(this.serverId).catch(() => undefined);
  }

  /** Live servers as health.check reports them. */
  async liveServers(): Promise<ServerProcess[]> {
    const rows = await this.store.servers.live(this.deadAfterMs);
    return rows.map((r) => this.describe(r));
  }

  private describe(r: ServerRow): ServerProcess {
    const self = r.server_id === this.serverId;
    return {
      server_id: r.server_id,
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
    if (!(await this.store.servers.beat(this.serverId, this.inFlight()))) {
      // Another server judged this one dead (a pause longer than deadAfterMs) and took over its
      // leases: results of those deliveries will be discarded by their fencing. Come back.
      await this.log.write({
        level: 'warn',
        component: 'servers',
        error_code: 'NODE_REJOINED',
        message: `node ${this.serverId} was taken over after its heartbeat lapsed (${this.deadAfterMs} ms) and joins again`,
      });
      await this.store.servers.register({ server_id: this.serverId, host: hostname(), pid: process.pid, version: this.version }, this.inFlight());
    }
    await this.reap(false);
    for (const listener of this.beatListeners) await listener();
  }

  /** Runs in the transaction that declares a server dead (alerts notify with it). */
  declaredDead: ((tx: StoreTx, takeover: ServerTakeover) => Promise<void>) | undefined;

  /** Takes over every dead server this server wins; returns how many. */
  async reap(everyOther: boolean): Promise<number> {
    let taken = 0;
    for (const serverId of await this.store.servers.lapsed(this.deadAfterMs, this.serverId, everyOther)) {
      // A takeover at boot of every other row (SQLite: one process) is no server dying.
      const alsoIn = everyOther ? undefined : this.declaredDead;
      const t = await this.store.servers.takeOver(serverId, this.deadAfterMs, this.store.clock.now().toISOString(), everyOther, alsoIn);
      if (!t) continue;
      taken++;
      await this.log.write({
        level: 'warn',
        component: 'servers',
        error_code: 'NODE_TAKEN_OVER',
        message: `node ${serverId} stopped sending heartbeats; ${this.serverId} took over ${t.idempotency_claims} in-progress idempotency claim(s) and ${t.leases} delivery lease(s)`,
      });
      for (const listener of this.takeoverListeners) listener(t);
    }
    return taken;
  }
}
