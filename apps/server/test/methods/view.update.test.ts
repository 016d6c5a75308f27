/** view.update: the owner renames, shares and refilters; an admin may change a shared view; others may not. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, fails, ok } from '../rpc-helpers';
import { expectNothingChanged } from './people-fixtures';
import { withServer } from './method-servers';
import { savedBy, viewPerson } from './view-fixtures';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('view.update', () => {
  it('the owner renames, shares and replaces the filters; others see the change and who made it', async () => {
    const [owner, other] = [await viewPerson(server, 'viewer'), await viewPerson(server, 'viewer')];
    const view = await savedBy(owner, 'first name');
    const { view: renamed } = await ok(owner.as, 'view.update', { view_id: view.id, name: 'second name' });
    expect(renamed).toEqual({ ...view, name: 'second name', updated_at: expect.any(String) });
    expect(renamed.updated_at >= view.updated_at).toBe(true);
    expect((await ok(other.as, 'view.list', { list: 'incidents' })).items.map((v) => v.id)).not.toContain(view.id);

    const { view: shared } = await ok(owner.as, 'view.update', { view_id: view.id, shared: true, filters: { state: 'all', sort: 'recent' } });
    expect(shared).toMatchObject({ name: 'second name', shared: true, filters: { state: 'all', sort: 'recent' } });
    expect((await ok(other.as, 'view.list', { list: 'incidents' })).items.find((v) => v.id === view.id)).toEqual({ ...shared, mine: false });

    await ok(owner.as, 'view.update', { view_id: view.id, shared: false });
    expect((await ok(other.as, 'view.list', { list: 'incidents' })).items.map((v) => v.id)).not.toContain(view.id);
  });

  it("a rename onto another of the owner's names on that list is refused; onto its own name in other case it is not", async () => {
    const owner = await viewPerson(server, 'operator');
    await savedBy(owner, 'Taken');
    const view = await savedBy(owner, 'free');
    const clash = await errorOf(owner.as, 'view.update', { view_id: view.id, name: 'taken' });
    expect(clash.code).toBe('INVALID_PARAMS');
    expect(clash.details.issues).toEqual([{ path: 'name', message: expect.stringContaining('you already have a view named "taken"') }]);
    expect((await ok(owner.as, 'view.update', { view_id: view.id, name: 'FREE' })).view.name).toBe('FREE');
  });

  it('two renames onto one name at once: one is made, the other refused as a clash, never an internal error', async () => {
    const owner = await viewPerson(server, 'operator');
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await savedBy(owner, `a ${round}`), await savedBy(owner, `b ${round}`)];
      const answers = await Promise.all([a, b].map((v) => owner.as.rpcUnchecked('view.update', { view_id: v.id, name: `same ${round}` })));
      const codes = answers.map((r) => (r.error ? (r.error.data as { code: string }).code : 'ok')).sort();
      expect(codes, JSON.stringify(answers.map((r) => r.error?.message))).toEqual(['INVALID_PARAMS', 'ok']);
    }
  });

  it("someone else's private view is NOT_FOUND, exactly like an id that does not exist, and stays as it was", async () => {
    const [owner, other] = [await viewPerson(server, 'viewer'), await viewPerson(server, 'admin')];
    const view = await savedBy(owner, 'private one');
    const hidden = await expectNothingChanged(server, () => errorOf(other.as, 'view.update', { view_id: view.id, name: 'took it' }));
    const missing = await errorOf(other.as, 'view.update', { view_id: 'view_does_not_exist', name: 'took it' });
    expect(hidden.code).toBe('NOT_FOUND');
    expect(missing.code).toBe('NOT_FOUND');
    expect(hidden.message.replace(view.id, 'ID')).toBe(missing.message.replace('view_does_not_exist', 'ID'));
    expect(hidden.details).toEqual({ resource: 'saved_view', id: view.id });
  });

  it("someone else's shared view: FORBIDDEN to a non-admin (unchanged), changed by an admin", async () => {
    const [owner, operator, admin] = [await viewPerson(server, 'viewer'), await viewPerson(server, 'operator'), await viewPerson(server, 'admin')];
    const view = await savedBy(owner, 'team view', { shared: true });
    const refused = await expectNothingChanged(server, () => errorOf(operator.as, 'view.update', { view_id: view.id, name: 'hijacked' }));
    expect(refused.code).toBe('FORBIDDEN');
    expect(refused.message).toContain(`is ${owner.name}'s; only its owner or an admin may change or delete it`);
    const { view: moderated } = await ok(admin.as, 'view.update', { view_id: view.id, name: 'team view (tidied)', shared: false });
    expect(moderated).toMatchObject({ owner_id: owner.userId, name: 'team view (tidied)', shared: false, mine: false });
    // Unshared, it is the owner's alone again: the admin no longer sees it.
    expect((await ok(admin.as, 'view.list', { list: 'incidents' })).items.map((v) => v.id)).not.toContain(view.id);
    expect((await ok(owner.as, 'view.list', { list: 'incidents' })).items.find((v) => v.id === view.id)).toMatchObject({ name: 'team view (tidied)', mine: true });
  });

  it('INVALID_PARAMS without a change, with a bad name or filters; NOT_FOUND for an unknown id', async () => {
    const owner = await viewPerson(server, 'viewer');
    const view = await savedBy(owner, 'to validate');
    expect((await fails(owner.as, 'view.update', { view_id: view.id }, 'INVALID_PARAMS')).data.details.issues?.[0]?.message).toBe('give at least one of name, filters and shared');
    await fails(owner.as, 'view.update', { view_id: view.id, name: '' }, 'INVALID_PARAMS');
    await fails(owner.as, 'view.update', { view_id: view.id, filters: { 'no spaces': 'x' } }, 'INVALID_PARAMS');
    await fails(owner.as, 'view.update', { view_id: view.id, list: 'events' }, 'INVALID_PARAMS');
    await fails(owner.as, 'view.update', { view_id: 'view_nope', shared: true }, 'NOT_FOUND');
  });
});
