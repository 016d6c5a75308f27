/**
 * The node registry: one row per server process on this store, kept fresh by its heartbeat. Times
 * are the database's (not the hosts'), so a node is judged alive or dead on one clock. A lapsed
 * node is taken over once: `takeOver` removes its row with a conditional delete, and only the
 * caller whose delete removed it releases the dead node's claims and leases in the same
 * transaction.
 */
import type { Kysely, Selectable } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import { storeTxOf, type StoreTx } from '../store-tx';
import type { Database, NodesTable } from '../schema';

export type NodeRow = Selectable<NodesTable>;

export interface NodeIdentity {
  node_id: string;
  host: string;
  pid: number;
  version: string;
}

/** What taking over a dead node released. */
export interface NodeTakeover {
  node_id: string;
  idempotency_claims: number;
  leases: number;
}

export class NodeRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  async register(node: NodeIdentity, inFlight = 0): Promise<void> {
    const now = this.engine.now();
    await this.db
      .insertInto('nodes')
      .values({ ...node, started_at: now, last_seen_at: now, in_flight: inFlight, stopped_at: null })
      .onConflict((oc) => oc.column('node_id').doUpdateSet({ last_seen_at: now, in_flight: inFlight, stopped_at: null }))
      .execute();
  }

  /** Refreshes the heartbeat; false when the row is gone (another node judged this one dead). */
  async beat(nodeId: string, inFlight: number): Promise<boolean> {
    const res = await this.db.updateTable('nodes').set({ last_seen_at: this.engine.now(), in_flight: inFlight }).where('node_id', '=', nodeId).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * A clean stop: the row goes, and so do in-progress claims of calls this node never finished
   * (its requests were already answered or cut off), so nothing of it needs taking over.
   */
  async remove(nodeId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('idempotency').where('state', '=', 'in_progress').where('node_id', '=', nodeId).execute();
      await trx.deleteFrom('nodes').where('node_id', '=', nodeId).execute();
    });
  }

  /** Nodes whose heartbeat is within `deadAfterMs`, oldest first. */
  live(deadAfterMs: number): Promise<NodeRow[]> {
    return this.db.selectFrom('nodes').selectAll().where('last_seen_at', '>', this.engine.now(-deadAfterMs)).orderBy('started_at').orderBy('node_id').execute();
  }

  /** The oldest live node: the one that supervises managed containers. */
  async oldestLive(deadAfterMs: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('nodes')
      .select('node_id')
      .where('last_seen_at', '>', this.engine.now(-deadAfterMs))
      .orderBy('started_at')
      .orderBy('node_id')
      .limit(1)
      .executeTakeFirst();
    return row?.node_id;
  }

  /** Nodes whose heartbeat lapsed more than `deadAfterMs` ago (all other nodes with `everyOther`). */
  async lapsed(deadAfterMs: number, except: string, everyOther = false): Promise<string[]> {
    let q = this.db.selectFrom('nodes').select('node_id').where('node_id', '<>', except);
    if (!everyOther) q = q.where('last_seen_at', '<=', this.engine.now(-deadAfterMs));
    return (await q.execute()).map((r) => r.node_id);
  }

  /**
   * Takes over a dead node: its row is deleted only while its heartbeat is still lapsed (or
   * unconditionally with `force`, for a store only this process can open), and then its
   * in-progress idempotency claims are dropped and its delivery leases end now, so they are
   * claimed again at once. Undefined when another node took it over first, or it came back.
   */
  async takeOver(nodeId: string, deadAfterMs: number, nowIso: string, force = false, alsoIn?: (tx: StoreTx, takeover: NodeTakeover) => Promise<void>): Promise<NodeTakeover | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let del = trx.deleteFrom('nodes').where('node_id', '=', nodeId);
      if (!force) del = del.where('last_seen_at', '<=', this.engine.now(-deadAfterMs));
      const removed = await del.executeTakeFirst();
      if (Number(removed.numDeletedRows) !== 1) return undefined;
      const claims = await trx.deleteFrom('idempotency').where('state', '=', 'in_progress').where('node_id', '=', nodeId).executeTakeFirst();
      const leases = await trx
        .updateTable('deliveries')
        .set({ lease_expires_at: nowIso })
        .where('status', '=', 'in_progress')
        .where('lease_owner', '=', nodeId)
        .where('lease_expires_at', '>', nowIso)
        .executeTakeFirst();
      const takeover = { node_id: nodeId, idempotency_claims: Number(claims.numDeletedRows), leases: Number(leases.numUpdatedRows) };
      await alsoIn?.(storeTxOf(trx), takeover);
      return takeover;
    });
  }

  /**
   * In-progress idempotency claims that name no node (written before nodes existed): dropped when
   * no other node is alive to be running them.
   */
  async dropOrphanClaims(): Promise<number> {
    const res = await this.db.deleteFrom('idempotency').where('state', '=', 'in_progress').where('node_id', 'is', null).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
