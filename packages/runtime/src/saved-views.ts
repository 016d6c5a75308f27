/**
 * Saved views: who sees and who may change which. A view belongs to the person who saved it. A
 * private view exists only for its owner: to anyone else it is NOT_FOUND, never FORBIDDEN, which
 * would tell them it exists. A shared view is listed to everyone who may read; its owner changes
 * it, and so may an admin (someone who administers people), to rename or withdraw what others see.
 * Each change commits with the caller's commit hook (the audit record and idempotent answer).
 */
import { MAX_SAVED_VIEWS_PER_LIST, RpcError, type SavedViewFilters, type SavedViewList } from '@switchboard/contract';
import { SavedViewNameTakenError, type Clock, type SavedViewRecord, type Store, type StoreTx } from '@switchboard/store';
import type { OnEffectCommit } from './effect-commit';
import { newId } from './ids';

/** Who asks: the person, and whether they may change others' shared views. */
export interface ViewActor {
  userId: string;
  moderatesSharedViews: boolean;
}

export interface ViewInput {
  list: SavedViewList;
  name: string;
  filters: SavedViewFilters;
  shared?: boolean;
}

export interface ViewChanges {
  name?: string;
  filters?: SavedViewFilters;
  shared?: boolean;
}

function notFound(id: string): RpcError {
  return new RpcError('NOT_FOUND', `No saved view with id ${id}`, { resource: 'saved_view', id });
}

function nameTaken(err: unknown): never {
  if (err instanceof SavedViewNameTakenError) {
    throw new RpcError('INVALID_PARAMS', `${err.message}; choose another name`, { issues: [{ path: 'name', message: err.message }] });
  }
  throw err;
}

export class SavedViews {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The actor's views first, then the views others shared; each group by name. */
  async visibleTo(actor: ViewActor, list?: SavedViewList): Promise<SavedViewRecord[]> {
    const views = await this.store.savedViews.visibleTo(actor.userId, list);
    return [...views.filter((v) => v.owner_user_id === actor.userId), ...views.filter((v) => v.owner_user_id !== actor.userId)];
  }

  async create(actor: ViewActor, input: ViewInput, onCommit?: OnEffectCommit<SavedViewRecord>): Promise<SavedViewRecord> {
    const now = this.clock.now();
    return this.store
      .transaction(async (tx) => {
        if ((await this.store.savedViews.countOwned(actor.userId, input.list, tx)) >= MAX_SAVED_VIEWS_PER_LIST) {
          const message = `you keep ${MAX_SAVED_VIEWS_PER_LIST} views of this list, the most one person may; delete one first`;
          throw new RpcError('INVALID_PARAMS', `Invalid params for view.create: ${message}`, { issues: [{ path: 'list', message }] });
        }
        const view = await this.store.savedViews.create(
          { id: newId('view', now), owner_user_id: actor.userId, list: input.list, name: input.name, filters: input.filters, shared: input.shared ?? false, created_at: now.toISOString() },
          tx,
        );
        await onCommit?.(tx, view);
        return view;
      })
      .catch(nameTaken);
  }

  async update(actor: ViewActor, id: string, changes: ViewChanges, onCommit?: OnEffectCommit<SavedViewRecord>): Promise<SavedViewRecord> {
    return this.store
      .transaction(async (tx) => {
        await this.changeable(actor, id, tx);
        const view = await this.store.savedViews.update(id, { ...changes, updated_at: this.clock.now().toISOString() }, tx);
        if (!view) throw notFound(id);
        await onCommit?.(tx, view);
        return view;
      })
      .catch(nameTaken);
  }

  async delete(actor: ViewActor, id: string, onCommit?: OnEffectCommit<string>): Promise<void> {
    await this.store.transaction(async (tx) => {
      await this.changeable(actor, id, tx);
      if (!(await this.store.savedViews.delete(id, tx))) throw notFound(id);
      await onCommit?.(tx, id);
    });
  }

  /** The view, if the actor may change it: NOT_FOUND when they may not see it, FORBIDDEN when they only see it. */
  private async changeable(actor: ViewActor, id: string, tx: StoreTx): Promise<SavedViewRecord> {
    const view = await this.store.savedViews.get(id, tx);
    if (!view || (view.owner_user_id !== actor.userId && !view.shared)) throw notFound(id);
    if (view.owner_user_id !== actor.userId && !actor.moderatesSharedViews) {
      throw new RpcError('FORBIDDEN', `Forbidden: the view "${view.name}" is ${view.owner_name}'s; only its owner or an admin may change or delete it`, {
        view_id: id,
        owner_name: view.owner_name,
      });
    }
    return view;
  }
}
