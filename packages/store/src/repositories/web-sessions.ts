import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../schema';
import { hashSecret } from './tokens';

/**
 * Browser sessions bound to a token: the cookie holds a random session secret, the store only its
 * hash. A session is only as good as its token: revoking the token ends its sessions.
 */
export class WebSessionRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(tokenId: string, ttlMs: number): Promise<{ secret: string; expiresAt: Date }> {
    const secret = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + ttlMs);
    await this.db
      .insertInto('web_sessions')
      .values({ id_hash: hashSecret(secret), token_id: tokenId, created_at: now.toISOString(), expires_at: expiresAt.toISOString() })
      .execute();
    return { secret, expiresAt };
  }

  /** The token id of a live session whose token is not revoked. */
  async resolve(secret: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('web_sessions as s')
      .innerJoin('tokens as t', 't.id', 's.token_id')
      .select(['s.token_id', 's.expires_at'])
      .where('s.id_hash', '=', hashSecret(secret))
      .where('t.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row || row.expires_at <= this.clock.now().toISOString()) return undefined;
    return row.token_id;
  }

  async destroy(secret: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id_hash', '=', hashSecret(secret)).execute();
  }
}
