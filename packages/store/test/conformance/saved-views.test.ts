/**
 * Saved views' rows (migration 024) on the test engine (SQLite, or PostgreSQL with
 * SWITCHBOARD_TEST_DATABASE_URL): filters come back as saved, names are unique per owner and list
 * without regard to case (decided by the index, so concurrent saves of one name cannot both win),
 * and the owner's name is read from their user row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SavedViewNameTakenError, type NewSavedView, type Store } from '@switchboard/store';
import { openTestStore } from '@switchboard/store/testing';

let dir: string;
let store: Store;
let ana: string;
let ben: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-saved-views-'));
  store = await openTestStore(dir);
  ana = (await store.users.create({ display_name: 'Ana', role: 'viewer' })).id;
  ben = (await store.users.create({ display_name: 'Ben', role: 'operator' })).id;
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
function view(owner: string, name: string, extra: Partial<NewSavedView> = {}): NewSavedView {
  return { id: `view_${++seq}`, owner_user_id: owner, list: 'events', name, filters: { event_name: 'ticket' }, shared: false, created_at: '2026-11-01T10:00:00.000Z', ...extra };
}

const create = (v: NewSavedView) => store.transaction((tx) => store.savedViews.create(v, tx));

describe('saved views in the store', () => {
  it('keeps filters as saved (repeated params, quotes, non-ASCII) and names the owner from their user row', async () => {
    const filters = { payload: ['ticket_id = "T-1030"', "customer ^= 'Zoë'"], range: '24h', entity_id: '订单-42' };
    const saved = await create(view(ana, 'Zoë’s tickets', { filters, shared: true }));
    expect(saved).toEqual({
      id: saved.id,
      owner_user_id: ana,
      owner_name: 'Ana',
      list: 'events',
      name: 'Zoë’s tickets',
      filters,
      shared: true,
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-01T10:00:00.000Z',
    });
    await store.users.update(ana, { display_name: 'Ana K.' });
    expect((await store.savedViews.get(saved.id))?.owner_name).toBe('Ana K.');
  });

  it("lists a person's views and everyone's shared ones, of one list or all, by name without case", async () => {
    const mine = await create(view(ana, 'b mine'));
    const minePrivateMailbox = await create(view(ana, 'mailbox one', { list: 'mailbox' }));
    const bensShared = await create(view(ben, 'A shared', { shared: true }));
    await create(view(ben, 'c private'));
    expect((await store.savedViews.visibleTo(ana, 'events')).map((v) => v.id)).toEqual([bensShared.id, mine.id]);
    expect((await store.savedViews.visibleTo(ana)).map((v) => v.id)).toEqual([bensShared.id, mine.id, minePrivateMailbox.id]);
    expect((await store.savedViews.visibleTo(ben, 'events')).map((v) => v.name)).toEqual(['A shared', 'c private']);
    expect(await store.savedViews.countOwned(ana, 'events')).toBe(1);
    expect(await store.savedViews.countOwned(ana, 'mailbox')).toBe(1);
  });

  it('a name is unique per owner and list ignoring case and outer spaces; other owners and lists are apart', async () => {
    await create(view(ana, 'Refunds'));
    await expect(create(view(ana, ' refunds '))).rejects.toBeInstanceOf(SavedViewNameTakenError);
    await create(view(ana, 'refunds', { list: 'dead_letters' }));
    await create(view(ben, 'REFUNDS'));
    expect(await store.savedViews.countOwned(ana, 'events')).toBe(1);
  });

  it('concurrent saves of one name by one person: exactly one is kept', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => create(view(ana, i % 2 ? 'Same Name' : 'same name'))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SavedViewNameTakenError);
    expect(await store.savedViews.countOwned(ana, 'events')).toBe(1);
  });

  it('updates name, filters and sharing; a rename onto another of the owner\'s names fails and changes nothing', async () => {
    const a = await create(view(ana, 'first'));
    await create(view(ana, 'second'));
    const at = '2026-11-02T10:00:00.000Z';
    await expect(store.transaction((tx) => store.savedViews.update(a.id, { name: 'SECOND', shared: true, updated_at: at }, tx))).rejects.toBeInstanceOf(SavedViewNameTakenError);
    expect(await store.savedViews.get(a.id)).toEqual(a);
    const changed = await store.transaction((tx) => store.savedViews.update(a.id, { name: 'First', filters: { dead: '1' }, shared: true, updated_at: at }, tx));
    expect(changed).toEqual({ ...a, name: 'First', filters: { dead: '1' }, shared: true, updated_at: at });
    expect(await store.transaction((tx) => store.savedViews.update('view_missing', { shared: true, updated_at: at }, tx))).toBeUndefined();
  });

  it('deletes a view once', async () => {
    const a = await create(view(ana, 'gone soon'));
    expect(await store.transaction((tx) => store.savedViews.delete(a.id, tx))).toBe(true);
    expect(await store.transaction((tx) => store.savedViews.delete(a.id, tx))).toBe(false);
    expect(await store.savedViews.get(a.id)).toBeUndefined();
    // Its name is free again.
    await create(view(ana, 'gone soon'));
  });
});
