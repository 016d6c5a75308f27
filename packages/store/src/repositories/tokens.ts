import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database, TokensTable } from '../schema';

export const TOKEN_PREFIX = 'sbk_';

export type TokenRecord = Omit<TokensTable, 'hash'>;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function newId(prefix: string): string {
  return prefix + randomBytes(8).toString('hex');
}

/**
 * Access tokens, stored only as SHA-256 hashes. Lookup is by hash (an index seek), then the hash
 * is compared in constant time so the final check does not leak how much of it matched.
 */
export class TokenRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(name: string, secret?: string): Promise<{ token: TokenRecord; secret: string }> {
    const value = secret ?? TOKEN_PREFIX + randomBytes(24).toString('base64url');
    const row: TokensTable = {
      id: newId('tok_'),
      name,
      prefix: value.slice(0, 8),
      hash: hashSecret(value),
      created_at: this.clock.now().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.db.insertInto('tokens').values(row).execute();
    const { hash: _hash, ...token } = row;
    return { token, secret: value };
  }

  /** Returns the active token for a presented secret, or undefined. */
  async verify(secret: string): Promise<TokenRecord | undefined> {
    const hash = hashSecret(secret);
    const row = await this.db.selectFrom('tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
    if (!row || row.revoked_at) return undefined;
    const a = Buffer.from(row.hash, 'hex');
    const b = Buffer.from(hash, 'hex');
    if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
    const { hash: _hash, ...token } = row;
    return token;
  }

  async findActiveById(id: string): Promise<TokenRecord | undefined> {
    const row = await this.db
      .selectFrom('tokens')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row;
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    return this.db
      .selectFrom('tokens')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
      .where('hash', '=', hash)
      .executeTakeFirst();
  }

  async touch(id: string): Promise<void> {
    await this.db.updateTable('tokens').set({ last_used_at: this.clock.now().toISOString() }).where('id', '=', id).execute();
  }

  async list(): Promise<TokenRecord[]> {
    return this.db
      .selectFrom('tokens')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
      .orderBy('created_at')
      .execute();
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('tokens').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Returns false when no active token has that id. */
  async revoke(id: string): Promise<boolean> {
    const res = await this.db
      .updateTable('tokens')
      .set({ revoked_at: this.clock.now().toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
}
