import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { ChangeFeedRepository } from '../change-feed';
import type { Database, UsersTable } from '../schema';
import type { StoreTx } from '../store-tx';

export interface UserRecord {
  id: string;
  display_name: string;
  email: string | null;
  role: string;
  disabled: boolean;
  created_at: string;
  last_seen_at: string | null;
  oidc_subject: string | null;
}

export function userOf(row: UsersTable): UserRecord {
  return { ...row, disabled: Boolean(row.disabled) };
}

export function newUserId(): string {
  return 'usr_' + randomBytes(8).toString('hex');
}

export interface UserChanges {
  role?: string;
  disabled?: boolean;
  display_name?: string;
  email?: string | null;
}

/** Refused changes that would leave nobody able to administer the runtime. */
export class LastAdminError extends Error {}

/**
 * People. A change to a user changes what their tokens may do, so every write is recorded as a
 * `tokens` change (other servers then forget the tokens they verified) and `onChange` lets this
 * process forget at once.
 */
export class UserRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeFeedRepository,
    private readonly onChange: () => void,
  ) {}

  async create(input: { display_name: string; email?: string | null; role: string; oidc_subject?: string | null; id?: string }, tx?: StoreTx): Promise<UserRecord> {
    const row: UsersTable = {
      id: input.id ?? newUserId(),
      display_name: input.display_name,
      email: input.email ?? null,
      role: input.role,
      disabled: 0,
      created_at: this.clock.now().toISOString(),
      last_seen_at: null,
      oidc_subject: input.oidc_subject ?? null,
    };
    await this.changes.write('tokens', tx, (trx) => trx.insertInto('users').values(row).execute());
    return userOf(row);
  }

  async get(id: string): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && userOf(row);
  }

  async findByOidcSubject(subject: string): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('oidc_subject', '=', subject).executeTakeFirst();
    return row && userOf(row);
  }

  async list(options: { includeDisabled?: boolean } = {}): Promise<UserRecord[]> {
    let q = this.db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id');
    if (options.includeDisabled === false) q = q.where('disabled', '=', 0);
    return (await q.execute()).map(userOf);
  }

  /**
   * Applies `changes`; undefined when no user has that id. Demoting or disabling the last enabled
   * admin throws LastAdminError and changes nothing.
   */
  async update(id: string, changes: UserChanges, tx?: StoreTx): Promise<UserRecord | undefined> {
    const result = await this.changes.write('tokens', tx, async (trx) => {
      const before = await trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      if (!before) return undefined;
      const losesAdmin = before.role === 'admin' && !before.disabled && ((changes.role !== undefined && changes.role !== 'admin') || changes.disabled === true);
      if (losesAdmin) {
        const admins = await trx
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('role', '=', 'admin')
          .where('disabled', '=', 0)
          .executeTakeFirstOrThrow();
        if (Number(admins.n) <= 1) throw new LastAdminError('the last enabled admin cannot be demoted or disabled; make someone else an admin first');
      }
      const set: Partial<UsersTable> = {};
      if (changes.role !== undefined) set.role = changes.role;
      if (changes.disabled !== undefined) set.disabled = changes.disabled ? 1 : 0;
      if (changes.display_name !== undefined) set.display_name = changes.display_name;
      if (changes.email !== undefined) set.email = changes.email;
      if (Object.keys(set).length) await trx.updateTable('users').set(set).where('id', '=', id).execute();
      return userOf({ ...before, ...set });
    });
    this.onChange();
    return result;
  }

}
