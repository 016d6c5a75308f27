/**
 * The server registry: one row per server process on this store, kept fresh by its heartbeat. Times
 * are the database's (not the hosts'), so a server is judged alive or dead on one clock. A lapsed
 * server is taken over once: `takeOver` removes its row with a conditional delete, and only the
 * caller whose delete removed it releases the dead server's claims and leases in the same
 * transaction.
 */
import type { Kysely, Selectable } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import { storeTxOf, type StoreTx } from '../store-tx';
import type { Database, ServersTable } from '../schema';

export type ServerRow = Selectable<ServersTable>;

export interface ServerIdentity {
  server_id: string;
  host: string;
  pid: number;
  version: string;
}

/** What taking over a dead server released. */
export interface ServerTakeover {
  server_id: string;
  idempotency_claims: number;
  leases: number;
}

export class ServerRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  async register(server: ServerIdentity, inFlight = 0): Promise<void> {
    const now = this.engine.now();
    await this.db
      .insertInto('servers')
      .values({ ...server, started_at: now, last_seen_at: now, in_flight: inFlight, stopped_at: null })
      .onConflict((oc) => oc.column('server_id').doUpdateSet({ last_seen_at: now, in_flight: inFlight, stopped_at: null }))
      .execute();
  }

  /** Refreshes the heartbeat; false when the row is gone (another server judged this one dead). */
  async beat(serverId: string, inFlight: number): Promise<boolean> {
    const res = await this.db.updateTable('servers').set({ last_seen_at: this.engine.now(), in_flight: inFlight }).where('server_id', '=', serverId).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * A clean stop: the row goes, and so do in-progress claims of calls this server never finished
   * (its requests were already answered or cut off), so nothing of it needs taking over.
   */
  async remove(serverId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('idempotency').where('state', '=', 'in_progress').where('server_id', '=', serverId).execute();
      await trx.deleteFrom('servers').where('server_id', '=', serverId).execute();
    });
  }

  /** Servers whose heartbeat is within `deadAfterMs`, oldest first. */
  live(deadAfterMs: number): Promise<ServerRow[]> {
    return this.db.selectFrom('servers').selectAll().where('last_seen_at', '>', this.engine.now(-deadAfterMs)).orderBy('started_at').orderBy('server_id').execute();
  }

  /** The oldest live server: the one that supervises managed containers. */
  async oldestLive(deadAfterMs: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('servers')
      .select('server_id')
      .where('last_seen_at', '>', this.engine.now(-deadAfterMs))
      .orderBy('started_at')
      .orderBy('server_id')
      .limit(1)
      .executeTakeFirst();
    return row?.server_id;
  }

  /** Servers whose heartbeat lapsed more than `deadAfterMs` ago (all other servers with `everyOther`). */
  async lapsed(deadAfterMs: number, except: string, everyOther = false): Promise<string[]> {
    let q = this.db.selectFrom('servers').select('server_id').where('server_id', '<>', except);
    if (!everyOther) q = q.where('last_seen_at', '<=', this.engine.now(-deadAfterMs));
    return (await q.execute()).map((r) => r.server_id);
  }

  /**
   * Takes over a dead server: its row is deleted only while its heartbeat is still lapsed (or
   * unconditionally with `force`, for a store only this process can open), and then its
   * in-progress idempotency claims are dropped and its delivery leases end now, so they are
   * claimed again at once. Undefined when another server took it over first, or it came back.
   */
  async takeOver(serverId: string, deadAfterMs: number, nowIso: string, force = false, alsoIn?: (tx: StoreTx, takeover: ServerTakeover) => Promise<void>): Promise<ServerTakeover | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let del = trx.deleteFrom('servers').where('server_id', '=', serverId);
      if (!force) del = del.where('last_seen_at', '<=', this.engine.now(-deadAfterMs));
      const removed = await del.executeTakeFirst();
      if (Number(removed.numDeletedRows) !== 1) return undefined;
      const claims = await trx.deleteFrom('idempotency').where('state', '=', 'in_progress').where('server_id', '=', serverId).executeTakeFirst();
      const leases = await trx
        .updateTable('deliveries')
        .set({ lease_expires_at: nowIso })
        .where('status', '=', 'in_progress')
        .where('lease_owner', '=', serverId)
        .where('lease_expires_at', '>', nowIso)
        .executeTakeFirst();
      const takeover = { server_id: serverId, idempotency_claims: Number(claims.numDeletedRows), leases: Number(leases.numUpdatedRows) };
      await alsoIn?.(storeTxOf(trx), takeover);
      return takeover;
    });
  }

  /**
   * In-progress idempotency claims that name no server (written before servers existed): dropped when
   * no other server is alive to be running them.
   */
  async dropOrphanClaims(): Promise<number> {
    const res = await this.db.deleteFrom('idempotency').where('state', '=', 'in_progress').where('server_id', 'is', null).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
