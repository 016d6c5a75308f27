import { hash as oneShotHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database, TokensTable } from '../schema';
import type { ChangeFeedRepository } from '../change-feed';
import { executorOf, type StoreTx } from '../store-tx';
import { newUserId, userOf, type UserRecord } from './users';

export const TOKEN_PREFIX = 'sbk_';

export type TokenRecord = Omit<TokensTable, 'hash'>;

/** A verified token with the person it acts for. */
export interface VerifiedToken extends TokenRecord {
  user: UserRecord;
}

export interface CreateTokenOptions {
  /** A secret chosen by the caller (SWITCHBOARD_TOKEN); a random one otherwise. */
  secret?: string;
  /** The person the token acts for; without one, a new admin user named after the token. */
  userId?: string;
  /** Narrows the token to these scopes (within the user's role). */
  scopes?: readonly string[];
}

const tokenColumns = ['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at', 'user_id', 'scopes'] as const;

/** One-shot: every authenticated request hashes its token, and a Hash object per call costs more. */
export function hashSecret(secret: string): string {
  return oneShotHash('sha256', secret);
}

function newId(prefix: string): string {
  return prefix + randomBytes(8).toString('hex');
}

/**
 * Access tokens, stored only as SHA-256 hashes. Lookup is by hash (an index seek), then the hash
 * is compared in constant time so the final check does not leak how much of it matched.
 *
 * Verified tokens are remembered by hash so that a request does not pay a SQL round trip. A revoke
 * in this process drops its entry at once; a change committed by another process is seen through
 * `changeCounter`, which moves when another process may have changed tokens (read once per turn of
 * the event loop, see counterThisTurn), and empties the memory before the next verification: on
 * SQLite whenever another connection commits to the file (the token CLI), on PostgreSQL whenever
 * the change feed carries a token change (another server, the CLI).
 * Creating and revoking a token are recorded in the change feed for that.
 */
export class TokenRepository {
  private readonly verified = new Map<string, VerifiedToken>();
  private verifiedAt: number | undefined;
  private counterReadThisTurn = false;
  private readonly nextTurn = () => {
    this.counterReadThisTurn = false;
  };

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeFeedRepository,
    /**
     * A number that changes when another process may have changed tokens; while it is undefined
     * (on PostgreSQL, no change listener following the feed), verified tokens are not remembered
     * and every verification reads the table.
     */
    private readonly changeCounter: () => number | undefined,
  ) {}

  async create(name: string, options: CreateTokenOptions = {}, tx?: StoreTx): Promise<{ token: TokenRecord; secret: string }> {
    const value = options.secret ?? TOKEN_PREFIX + randomBytes(24).toString('base64url');
    const now = this.clock.now().toISOString();
    const row: TokensTable = {
      id: newId('tok_'),
      name,
      prefix: value.slice(0, 8),
      hash: hashSecret(value),
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      user_id: options.userId ?? newUserId(),
      scopes: options.scopes ? JSON.stringify([...options.scopes]) : null,
    };
    await this.changes.write('tokens', tx, async (trx) => {
      if (!options.userId) {
        await trx.insertInto('users').values({ id: row.user_id!, display_name: name, email: null, role: 'admin', disabled: 0, created_at: now, last_seen_at: null, oidc_subject: null }).execute();
      }
      await trx.insertInto('tokens').values(row).execute();
    });
    const { hash: _hash, ...token } = row;
    return { token, secret: value };
  }

  /**
   * The change counter, read at most once per turn of the event loop: under load one read serves
   * every request of the turn (on SQLite each read is a statement). A request read from its socket
   * after another process's commit is verified in a later turn than the commit, or in a turn whose
   * first verification came after the commit, so it sees it; the bound is one loop turn.
   */
  private counterThisTurn(): number | undefined {
    if (this.counterReadThisTurn) return this.verifiedAt;
    const version = this.changeCounter();
    this.counterReadThisTurn = true;
    setImmediate(this.nextTurn);
    if (version !== this.verifiedAt) {
      this.verified.clear();
      this.verifiedAt = version;
    }
    return version;
  }

  /** Forgets every verified token (a user's role or state changed in this process). */
  forgetVerified(): void {
    this.verified.clear();
  }

  /** Returns the active token for a presented secret, with its user, or undefined. */
  async verify(secret: string): Promise<VerifiedToken | undefined> {
    const hash = hashSecret(secret);
    const version = this.counterThisTurn();
    const known = version === undefined ? undefined : this.verified.get(hash);
    if (known) return known;
    const row = await this.db.selectFrom('tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
    if (!row || row.revoked_at) return undefined;
    const a = Buffer.from(row.hash, 'hex');
    const b = Buffer.from(hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
    const { hash: _hash, ...token } = row;
    const user = await this.userOf(token);
    if (!user) return undefined;
    const verified = { ...token, user };
    if (version !== undefined) this.verified.set(hash, verified);
    return verified;
  }

  private async userOf(token: TokenRecord): Promise<UserRecord | undefined> {
    if (!token.user_id) return undefined;
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', token.user_id).executeTakeFirst();
    return row && userOf(row);
  }

  async findActiveById(id: string): Promise<VerifiedToken | undefined> {
    const row = await this.db.selectFrom('tokens').select(tokenColumns).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    if (!row) return undefined;
    const user = await this.userOf(row);
    return user && { ...row, user };
  }

  async findById(id: string, tx?: StoreTx): Promise<TokenRecord | undefined> {
    return (tx ? executorOf(tx) : this.db).selectFrom('tokens').select(tokenColumns).where('id', '=', id).executeTakeFirst();
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    return this.db.selectFrom('tokens').select(tokenColumns).where('hash', '=', hash).executeTakeFirst();
  }

  /** Notes a use of the token and that its person was seen (minute precision: see authenticate). */
  async touch(id: string, userId?: string | null): Promise<void> {
    const last_used_at = this.clock.now().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('tokens').set({ last_used_at }).where('id', '=', id).execute();
      if (userId) await trx.updateTable('users').set({ last_seen_at: last_used_at }).where('id', '=', userId).execute();
    });
    for (const token of this.verified.values()) {
      if (token.id !== id) continue;
      token.last_used_at = last_used_at;
      token.user.last_seen_at = last_used_at;
    }
  }

  async list(options: { userId?: string; includeRevoked?: boolean } = {}): Promise<TokenRecord[]> {
    let q = this.db.selectFrom('tokens').select(tokenColumns).orderBy('created_at').orderBy('id');
    if (options.userId) q = q.where('user_id', '=', options.userId);
    if (options.includeRevoked === false) q = q.where('revoked_at', 'is', null);
    return q.execute();
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('tokens').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Returns false when no active token has that id. */
  async revoke(id: string, tx?: StoreTx): Promise<boolean> {
    const res = await this.changes.write('tokens', tx, (trx) =>
      trx.updateTable('tokens').set({ revoked_at: this.clock.now().toISOString() }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst(),
    );
    for (const [hash, token] of this.verified) if (token.id === id) this.verified.delete(hash);
    return Number(res.numUpdatedRows) > 0;
  }
}
