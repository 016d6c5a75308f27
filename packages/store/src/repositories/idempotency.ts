import type { Kysely } from 'kysely';
import { executorOf, type StoreTx } from '../store-tx';
import type { Clock } from '../clock';
import type { Database } from '../schema';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: string }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

export interface IdempotencyKeyRef {
  method: string;
  tokenId: string;
  key: string;
}

/**
 * Stored outcomes of mutating calls, keyed by (method, token id, key). A claim row is written
 * before the call runs so a concurrent duplicate sees "in progress" instead of running twice.
 */
export class IdempotencyRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly retentionMs = IDEMPOTENCY_RETENTION_MS,
  ) {}

  /**
   * Claims a key, or says why not. The claim is an INSERT that does nothing on a conflict: of
   * concurrent duplicates exactly one inserts (on PostgreSQL the others wait on the key, then see
   * the winner's row), so none of them fails on the primary key. An expired record is removed first.
   */
  async claim(ref: IdempotencyKeyRef, bodyHash: string, serverId: string | null = null): Promise<IdempotencyClaim> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const sameKey = <Q extends { where: (...args: any[]) => Q }>(q: Q): Q => q.where('method', '=', ref.method).where('token_id', '=', ref.tokenId).where('key', '=', ref.key);
    return this.db.transaction().execute(async (trx) => {
      await sameKey(trx.deleteFrom('idempotency')).where('expires_at', '<=', nowIso).execute();
      const inserted = await trx
        .insertInto('idempotency')
        .values({
          method: ref.method,
          token_id: ref.tokenId,
          key: ref.key,
          body_hash: bodyHash,
          state: 'in_progress',
          response: null,
          created_at: nowIso,
          expires_at: new Date(now.getTime() + this.retentionMs).toISOString(),
          server_id: serverId,
        })
        .onConflict((oc) => oc.columns(['method', 'token_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted) return { kind: 'claimed' } as const;
      const existing = await sameKey(trx.selectFrom('idempotency').selectAll()).executeTakeFirst();
      // Gone again: the holder's record expired and another claimer removed it in between.
      if (!existing) return { kind: 'in_progress' } as const;
      if (existing.body_hash !== bodyHash) return { kind: 'conflict' } as const;
      if (existing.state === 'in_progress' || existing.response === null) return { kind: 'in_progress' } as const;
      return { kind: 'replay', response: existing.response } as const;
    });
  }

  /** Stores the outcome; given the effect's transaction, the outcome commits (or not) with the effect. */
  async complete(ref: IdempotencyKeyRef, response: string, tx?: StoreTx): Promise<void> {
    await (tx ? executorOf(tx) : this.db)
      .updateTable('idempotency')
      .set({ state: 'done', response })
      .where('method', '=', ref.method)
      .where('token_id', '=', ref.tokenId)
      .where('key', '=', ref.key)
      .execute();
  }

  /** Forget a claim whose outcome must not be stored (retryable errors), so a retry can run. */
  async release(ref: IdempotencyKeyRef): Promise<void> {
    await this.db
      .deleteFrom('idempotency')
      .where('method', '=', ref.method)
      .where('token_id', '=', ref.tokenId)
      .where('key', '=', ref.key)
      .where('state', '=', 'in_progress')
      .execute();
  }

  async purgeExpired(): Promise<number> {
    const res = await this.db.deleteFrom('idempotency').where('expires_at', '<=', this.clock.now().toISOString()).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('idempotency').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
