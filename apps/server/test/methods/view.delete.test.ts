/** view.delete: the owner (or an admin, for a shared view) deletes; others get NOT_FOUND or FORBIDDEN. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, fails, ok } from '../rpc-helpers';
import { expectNothingChanged } from './people-fixtures';
import { keyMaker, withServer } from './method-servers';
import { savedBy, viewPerson } from './view-fixtures';

let server: TestServer;
withServer((s) => {
  server = s;
});
const key = keyMaker('view-delete');

describe('view.delete', () => {
  it('the owner deletes a view: gone from every list, audited, and a second delete is NOT_FOUND', async () => {
    const [owner, other] = [await viewPerson(server, 'reviewer'), await viewPerson(server, 'viewer')];
    const view = await savedBy(owner, 'short-lived', { shared: true });
    expect(await ok(owner.as, 'view.delete', { view_id: view.id })).toEqual({ view_id: view.id, deleted: true });
    expect((await ok(owner.as, 'view.list', {})).items.map((v) => v.id)).not.toContain(view.id);
    expect((await ok(other.as, 'view.list', {})).items.map((v) => v.id)).not.toContain(view.id);
    await fails(owner.as, 'view.delete', { view_id: view.id }, 'NOT_FOUND');
    const { items } = await ok(server, 'audit.list', { method: 'view.delete', target_id: view.id });
    expect(items.map((r) => [r.user_id, r.outcome])).toEqual([
      [owner.userId, 'NOT_FOUND'],
      [owner.userId, 'ok'],
    ]);
  });

  it('a keyed delete replays its answer', async () => {
    const owner = await viewPerson(server, 'viewer');
    const view = await savedBy(owner, 'keyed');
    const params = { view_id: view.id, idempotency_key: key() };
    expect(await ok(owner.as, 'view.delete', params)).toEqual({ view_id: view.id, deleted: true });
    expect(await ok(owner.as, 'view.delete', params)).toEqual({ view_id: view.id, deleted: true });
  });

  it("someone else's private view is NOT_FOUND, even to an admin, and is kept", async () => {
    const [owner, admin] = [await viewPerson(server, 'viewer'), await viewPerson(server, 'admin')];
    const view = await savedBy(owner, 'mine alone');
    const answer = await expectNothingChanged(server, () => errorOf(admin.as, 'view.delete', { view_id: view.id }));
    expect(answer).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'saved_view', id: view.id } });
    expect((await ok(owner.as, 'view.list', {})).items.map((v) => v.id)).toContain(view.id);
  });

  it("someone else's shared view: FORBIDDEN to a non-admin, deleted by an admin", async () => {
    const [owner, operator, admin] = [await viewPerson(server, 'operator'), await viewPerson(server, 'operator'), await viewPerson(server, 'admin')];
    const view = await savedBy(owner, 'shared to delete', { shared: true });
    const refused = await expectNothingChanged(server, () => errorOf(operator.as, 'view.delete', { view_id: view.id }));
    expect(refused).toMatchObject({ code: 'FORBIDDEN', details: { view_id: view.id, owner_name: owner.name } });
    expect(await ok(admin.as, 'view.delete', { view_id: view.id })).toEqual({ view_id: view.id, deleted: true });
    expect((await ok(owner.as, 'view.list', {})).items.map((v) => v.id)).not.toContain(view.id);
  });

  it('INVALID_PARAMS for a missing or over-long id', async () => {
    await fails(server, 'view.delete', {}, 'INVALID_PARAMS');
    await fails(server, 'view.delete', { view_id: 'v'.repeat(101) }, 'INVALID_PARAMS');
  });
});
