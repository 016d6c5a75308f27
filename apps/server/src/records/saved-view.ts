/** Saved views as the contract shapes them, for the caller who asked. */
import type { SavedView, SavedViewList } from '@switchboard/contract';
import type { ViewActor } from '@switchboard/runtime';
import type { SavedViewRecord } from '@switchboard/store';
import type { Principal } from '../rpc/handler';

export function savedViewResult(view: SavedViewRecord, callerId: string): SavedView {
  return {
    id: view.id,
    list: view.list as SavedViewList,
    name: view.name,
    filters: view.filters,
    shared: view.shared,
    owner_id: view.owner_user_id,
    owner_name: view.owner_name,
    mine: view.owner_user_id === callerId,
    created_at: view.created_at,
    updated_at: view.updated_at,
  };
}

/** The caller as the saved-view rules see them: an admin of people may change others' shared views. */
export function viewActorOf(principal: Principal): ViewActor {
  return { userId: principal.userId, moderatesSharedViews: principal.scopes.has('users:admin') };
}
