/** view.list: the caller's views, then the views others shared, each with its owner's name. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../rpc-helpers';
import { withServer } from './method-servers';
import { savedBy, viewPerson } from './view-fixtures';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('view.list', () => {
  it("lists the caller's views first, then others' shared ones, by name; others' private views never", async () => {
    const [ana, ben, cy] = [await viewPerson(server, 'operator'), await viewPerson(server, 'viewer'), await viewPerson(server, 'reviewer')];
    const anaPrivate = await savedBy(ana, 'zeta mine');
    const anaShared = await savedBy(ana, 'alpha mine, shared', { shared: true });
    const benShared = await savedBy(ben, 'Beta by ben', { shared: true });
    await savedBy(ben, "ben's secret");
    const cyShared = await savedBy(cy, 'aardvark by cy', { shared: true });

    const seenByAna = (await ok(ana.as, 'view.list', { list: 'incidents' })).items;
    expect(seenByAna.map((v) => [v.name, v.owner_name, v.mine, v.shared])).toEqual([
      ['alpha mine, shared', ana.name, true, true],
      ['zeta mine', ana.name, true, false],
      ['aardvark by cy', cy.name, false, true],
      ['Beta by ben', ben.name, false, true],
    ]);
    expect(seenByAna.find((v) => v.id === benShared.id)).toEqual({ ...benShared, mine: false });
    const seenByCy = (await ok(cy.as, 'view.list', { list: 'incidents' })).items.map((v) => v.id);
    expect(seenByCy).toEqual([cyShared.id, anaShared.id, benShared.id]);
    expect(seenByCy).not.toContain(anaPrivate.id);
  });

  it('filters by list; without one, every list', async () => {
    const owner = await viewPerson(server, 'viewer');
    const events = await savedBy(owner, 'e', { list: 'events', filters: { event_name: 'ticket' } });
    const mailbox = await savedBy(owner, 'm', { list: 'mailbox', filters: { status: 'pending' } });
    const mine = async (params: { list?: 'events' | 'mailbox' | 'dead_letters' }) => (await ok(owner.as, 'view.list', params)).items.filter((v) => v.mine).map((v) => v.id);
    expect(await mine({ list: 'events' })).toEqual([events.id]);
    expect(await mine({ list: 'mailbox' })).toEqual([mailbox.id]);
    expect(await mine({ list: 'dead_letters' })).toEqual([]);
    expect((await mine({})).sort()).toEqual([events.id, mailbox.id].sort());
  });

  it("shows the owner's name as it is now: a renamed person's shared views follow", async () => {
    const [owner, other] = [await viewPerson(server, 'viewer'), await viewPerson(server, 'viewer')];
    const view = await savedBy(owner, 'renamed owner', { shared: true, list: 'dead_letters' });
    await ok(server, 'user.update', { user_id: owner.userId, display_name: 'Dana Renamed' });
    const seen = (await ok(other.as, 'view.list', { list: 'dead_letters' })).items.find((v) => v.id === view.id);
    expect(seen).toMatchObject({ owner_id: owner.userId, owner_name: 'Dana Renamed', mine: false });
  });

  it('INVALID_PARAMS for an unknown list or member', async () => {
    await fails(server, 'view.list', { list: 'runs' }, 'INVALID_PARAMS');
    await fails(server, 'view.list', { owner: 'me' }, 'INVALID_PARAMS');
  });
});
