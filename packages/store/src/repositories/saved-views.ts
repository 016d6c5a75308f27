/**
 * Saved views (migration 024): people's named filters for a console list. Who may see or change
 * which view is the runtime's rule (saved-views.ts there); this file reads and writes rows.
 */
import type { Kysely } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import type { Database, SavedViewsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';

export type SavedViewFilterValues = Record<string, string | string[]>;

export interface SavedViewRecord {
  id: string;
  owner_user_id: string;
  /** The owner's display name as it is now (their user row), or their id if that row is gone. */
  owner_name: string;
  list: string;
  name: string;
  filters: SavedViewFilterValues;
  shared: boolean;
  created_at: string;
  updated_at: string;
}

export interface NewSavedView {
  id: string;
  owner_user_id: string;
  list: string;
  name: string;
  filters: SavedViewFilterValues;
  shared: boolean;
  created_at: string;
}

export interface SavedViewChanges {
  name?: string;
  filters?: SavedViewFilterValues;
  shared?: boolean;
  updated_at: string;
}

/** Another view of the same owner and list has this name (compared without case). */
export class SavedViewNameTakenError extends Error {
  constructor(readonly viewName: string) {
    super(`you already have a view named "${viewName}" on this list`);
  }
}

/** What uniqueness compares: "Refunds " and "refunds" are the same name. */
export function savedViewNameKey(name: string): string {
  return name.trim().toLowerCase();
}

type Row = SavedViewsTable & { owner_name: string | null };

function recordOf(row: Row): SavedViewRecord {
  return {
    id: row.id,
    owner_user_id: row.owner_user_id,
    owner_name: row.owner_name ?? row.owner_user_id,
    list: row.list,
    name: row.name,
    filters: JSON.parse(row.filters) as SavedViewFilterValues,
    shared: Boolean(row.shared),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class SavedViewRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
  ) {}

  private on(tx?: StoreTx): Kysely<Database> {
    return tx ? executorOf(tx) : this.db;
  }

  private withOwner(tx?: StoreTx) {
    return this.on(tx)
      .selectFrom('saved_views as v')
      .leftJoin('users as u', 'u.id', 'v.owner_user_id')
      .selectAll('v')
      .select('u.display_name as owner_name');
  }

  /** `userId`'s views and everyone's shared ones (of `list`, or of every list), by name. */
  async visibleTo(userId: string, list?: string): Promise<SavedViewRecord[]> {
    let q = this.withOwner().where((eb) => eb.or([eb('v.owner_user_id', '=', userId), eb('v.shared', '=', 1)]));
    if (list !== undefined) q = q.where('v.list', '=', list);
    const rows = await q.orderBy('v.name_key').orderBy('v.id').execute();
    return rows.map(recordOf);
  }

  async get(id: string, tx?: StoreTx): Promise<SavedViewRecord | undefined> {
    const row = await this.withOwner(tx).where('v.id', '=', id).executeTakeFirst();
    return row && recordOf(row);
  }

  /** How many views `ownerId` keeps for `list`. */
  async countOwned(ownerId: string, list: string, tx?: StoreTx): Promise<number> {
    const row = await this.on(tx)
      .selectFrom('saved_views')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_user_id', '=', ownerId)
      .where('list', '=', list)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Inserts a view; SavedViewNameTakenError when its owner has one of that name on that list. The
   * unique index decides, so two servers saving one name at once cannot both succeed.
   */
  async create(view: NewSavedView, tx: StoreTx): Promise<SavedViewRecord> {
    const inserted = await executorOf(tx)
      .insertInto('saved_views')
      .values({
        id: view.id,
        owner_user_id: view.owner_user_id,
        list: view.list,
        name: view.name,
        name_key: savedViewNameKey(view.name),
        filters: JSON.stringify(view.filters),
        shared: view.shared ? 1 : 0,
        created_at: view.created_at,
        updated_at: view.created_at,
      })
      .onConflict((oc) => oc.columns(['owner_user_id', 'list', 'name_key']).doNothing())
      .returning('id')
      .execute();
    if (inserted.length === 0) throw new SavedViewNameTakenError(view.name);
    return (await this.get(view.id, tx))!;
  }

  /** Applies `changes`; undefined when there is no such view; SavedViewNameTakenError on a clash. */
  async update(id: string, changes: SavedViewChanges, tx: StoreTx): Promise<SavedViewRecord | undefined> {
    const trx = executorOf(tx);
    const before = await trx.selectFrom('saved_views').select(['owner_user_id', 'list']).where('id', '=', id).executeTakeFirst();
    if (!before) return undefined;
    const set: Partial<SavedViewsTable> = { updated_at: changes.updated_at };
    if (changes.name !== undefined) {
      const nameKey = savedViewNameKey(changes.name);
      const taken = await trx
        .selectFrom('saved_views')
        .select('id')
        .where('owner_user_id', '=', before.owner_user_id)
        .where('list', '=', before.list)
        .where('name_key', '=', nameKey)
        .where('id', '<>', id)
        .executeTakeFirst();
      if (taken) throw new SavedViewNameTakenError(changes.name);
      set.name = changes.name;
      set.name_key = nameKey;
    }
    if (changes.filters !== undefined) set.filters = JSON.stringify(changes.filters);
    if (changes.shared !== undefined) set.shared = changes.shared ? 1 : 0;
    try {
      await trx.updateTable('saved_views').set(set).where('id', '=', id).execute();
    } catch (err) {
      // Another rename onto this name committed between the check above and this write.
      if (changes.name !== undefined && this.engine.classifyError(err) === 'duplicate') throw new SavedViewNameTakenError(changes.name);
      throw err;
    }
    return this.get(id, tx);
  }

  async delete(id: string, tx: StoreTx): Promise<boolean> {
    const res = await executorOf(tx).deleteFrom('saved_views').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
