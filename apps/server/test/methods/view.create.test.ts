/** view.create: saves a named set of filters for a list, validated, unique per person and list. */
import { describe, expect, it } from 'vitest';
import { MAX_SAVED_VIEWS_PER_LIST } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { errorOf, fails, ok } from '../rpc-helpers';
import { keyMaker, withServer } from './method-servers';
import { savedBy, viewPerson } from './view-fixtures';

let server: TestServer;
withServer((s) => {
  server = s;
});
const key = keyMaker('view-create');

describe('view.create', () => {
  it("saves a viewer's private view: its filters as sent, the owner's name, listed to them and audited", async () => {
    const viewer = await viewPerson(server, 'viewer');
    const filters = { event_name: 'refund', range: '24h', payload: ['ticket_id = T-1030', 'order_id ^= ORD-'] };
    const { view } = await ok(viewer.as, 'view.create', { list: 'events', name: '  Refunds today ', filters });
    expect(view).toEqual({
      id: expect.stringMatching(/^view_/),
      list: 'events',
      name: 'Refunds today',
      filters,
      shared: false,
      owner_id: viewer.userId,
      owner_name: viewer.name,
      mine: true,
      created_at: expect.any(String),
      updated_at: view.created_at,
    });
    expect((await ok(viewer.as, 'view.list', { list: 'events' })).items).toEqual([view]);
    const { items } = await ok(server, 'audit.list', { method: 'view.create', target_id: view.id });
    expect(items.map((r) => [r.user_id, r.outcome])).toEqual([[viewer.userId, 'ok']]);
  });

  it('a name is unique per person and list, ignoring case; another list or another person may reuse it', async () => {
    const [ana, ben] = [await viewPerson(server, 'operator'), await viewPerson(server, 'viewer')];
    await savedBy(ana, 'Open ones');
    const clash = await errorOf(ana.as, 'view.create', { list: 'incidents', name: 'OPEN ONES', filters: {} });
    expect(clash.code).toBe('INVALID_PARAMS');
    expect(clash.message).toContain('you already have a view named "OPEN ONES" on this list');
    expect(clash.details.issues).toEqual([{ path: 'name', message: expect.stringContaining('OPEN ONES') }]);
    await savedBy(ana, 'Open ones', { list: 'mailbox', filters: { status: 'pending' } });
    await savedBy(ben, 'Open ones');
    expect((await ok(ana.as, 'view.list', {})).items.map((v) => [v.list, v.name])).toEqual([
      ['incidents', 'Open ones'],
      ['mailbox', 'Open ones'],
    ]);
  });

  it.each([
    ['an unknown list', { list: 'runs', name: 'x', filters: {} }, 'list'],
    ['an empty name', { list: 'events', name: '   ', filters: {} }, 'name'],
    ['a name over 80 characters', { list: 'events', name: 'n'.repeat(81), filters: {} }, 'name'],
    ['a filter name with capitals and spaces', { list: 'events', name: 'x', filters: { 'Event Name': 'a' } }, 'filters.Event Name'],
    ['a filter name that is not a param name', { list: 'events', name: 'x', filters: { __proto__x: 'a' } }, 'filters.__proto__x'],
    ['a filter value over 1,000 characters', { list: 'events', name: 'x', filters: { event_name: 'e'.repeat(1001) } }, 'filters.event_name'],
    ['a filter value that is an object', { list: 'events', name: 'x', filters: { event_name: { nested: 'no' } } }, 'filters.event_name'],
    ['a filter value that is a number', { list: 'events', name: 'x', filters: { window: 24 } }, 'filters.window'],
    ['an empty list of values', { list: 'events', name: 'x', filters: { payload: [] } }, 'filters.payload'],
    ['more than 20 values of one param', { list: 'events', name: 'x', filters: { payload: Array.from({ length: 21 }, (_, i) => `v${i}`) } }, 'filters.payload'],
    ['more than 32 filters', { list: 'events', name: 'x', filters: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, 'v'])) }, 'filters'],
    ['an unknown member', { list: 'events', name: 'x', filters: {}, owner_id: 'usr_someone' }, 'owner_id'],
  ])('INVALID_PARAMS for %s, naming the member', async (_what, params, path) => {
    const error = await fails(server, 'view.create', params, 'INVALID_PARAMS');
    expect(error.data.details.issues?.map((i) => i.path)).toContain(path);
  });

  it('a keyed create saves once: the replay answers the same view', async () => {
    const owner = await viewPerson(server, 'reviewer');
    const params = { list: 'dead_letters' as const, name: 'Not redriven', filters: { redriven: '0' }, idempotency_key: key() };
    const first = await ok(owner.as, 'view.create', params);
    expect(await ok(owner.as, 'view.create', params)).toEqual(first);
    expect((await ok(owner.as, 'view.list', { list: 'dead_letters' })).items).toHaveLength(1);
  });

  it(`a person keeps at most ${MAX_SAVED_VIEWS_PER_LIST} views of one list; the next is refused with a clear error`, async () => {
    const owner = await viewPerson(server, 'viewer');
    for (let i = 0; i < MAX_SAVED_VIEWS_PER_LIST; i++) await savedBy(owner, `view ${i}`);
    const refused = await errorOf(owner.as, 'view.create', { list: 'incidents', name: 'one too many', filters: {} });
    expect(refused.code).toBe('INVALID_PARAMS');
    expect(refused.message).toContain(`you keep ${MAX_SAVED_VIEWS_PER_LIST} views of this list`);
    // Other lists are counted apart.
    await savedBy(owner, 'one too many', { list: 'mailbox' });
  });
});
