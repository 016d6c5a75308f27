/**
 * The two-person rule over HTTP, each person with a token of their own (two-person test bundle):
 * what mailbox.get shows, what each approve answers, who is refused and why, on SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorRegistry } from '@switchboard/contract';
import { databaseOf } from '@switchboard/store/testing';
import { startTestServer, type TestServer } from '../harness';
import { addPerson, openItemOf, TWO_PERSON_BUNDLE, type TestPerson } from '../two-person-helpers';

let server: TestServer;
let rita: TestPerson;
let ravi: TestPerson;
let otto: TestPerson;
let memoReader: TestPerson;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: TWO_PERSON_BUNDLE } });
  rita = await addPerson(server, 'Rita Reviewer', 'reviewer');
  ravi = await addPerson(server, 'Ravi Reviewer', 'reviewer');
  otto = await addPerson(server, 'Otto Operator', 'operator');
  memoReader = await addPerson(server, 'Mona Memo', 'reviewer', 'usr_memo_reader');
}, 120_000);
afterAll(async () => {
  await server?.close();
});

let orders = 0;
const openOrder = (secret?: string) => openItemOf(server, 'order.placed', { order_id: `tp-${++orders}`, amount: 10 }, secret);
const approveAs = (who: TestPerson, mailboxId: string, extra: Record<string, unknown> = {}) => server.rpc('mailbox.approve', { mailbox_id: mailboxId, ...extra }, { token: who.secret });
const emittedBy = async (mailboxId: string) =>
  (await databaseOf(server.store).selectFrom('events').select('event_id').where('source', '=', `mailbox:${mailboxId}`).execute()).length;

describe('mailbox.approve with two approvals required', () => {
  it('mailbox.get shows who may decide, the approvals so far by name and who started the run', async () => {
    const item = await openOrder(otto.secret);
    const before = (await server.rpc('mailbox.get', { mailbox_id: item.mailbox_id })).result!;
    expect(before.deciders).toEqual({ roles: ['reviewer', 'operator'], user_ids: [], approvals_required: 2 });
    expect(before.approvals).toEqual([]);
    expect(before.run_started_by_user_id).toBe(otto.userId);

    const first = await approveAs(rita, item.mailbox_id, { reason: 'looks right' });
    expect(first.result).toMatchObject({ ok: true, status: 'pending', approvals_required: 2, idempotency_replayed: false });
    expect(first.result!.approvals).toEqual([{ user_id: rita.userId, user_name: 'Rita Reviewer', at: expect.any(String) }]);
    expect(first.result!.downstream_event_id).toBeUndefined();
    const during = (await server.rpc('mailbox.get', { mailbox_id: item.mailbox_id })).result!;
    expect(during.item.status).toBe('pending');
    expect(during.approvals!.map((a) => a.user_name)).toEqual(['Rita Reviewer']);
    expect(await emittedBy(item.mailbox_id)).toBe(0);

    const second = await approveAs(ravi, item.mailbox_id);
    expect(second.result).toMatchObject({ status: 'approved', downstream_event_name: 'order.approved', approvals_required: 2 });
    expect(second.result!.approvals!.map((a) => a.user_name)).toEqual(['Rita Reviewer', 'Ravi Reviewer']);
    expect(await emittedBy(item.mailbox_id)).toBe(1);
    const after = (await server.rpc('mailbox.get', { mailbox_id: item.mailbox_id })).result!;
    expect(after.item.status).toBe('approved');
    expect(after.emitted_event_id).toBe(second.result!.downstream_event_id);
  });

  it('the same person twice: ALREADY_APPROVED (stable code, not retryable), item still pending with one approval', async () => {
    const item = await openOrder();
    expect((await approveAs(rita, item.mailbox_id)).result?.status).toBe('pending');
    const again = await approveAs(rita, item.mailbox_id);
    expect(again.error).toMatchObject({ code: errorRegistry.ALREADY_APPROVED.rpcCode, data: { code: 'ALREADY_APPROVED', retryable: false, details: { approvals_required: 2 } } });
    const got = (await server.rpc('mailbox.get', { mailbox_id: item.mailbox_id })).result!;
    expect(got.item.status).toBe('pending');
    expect(got.approvals!.map((a) => a.user_id)).toEqual([rita.userId]);
    // A keyed retry of the first approval replays its answer instead of counting twice.
    const key = `tp-key-${Date.now()}`;
    const keyedItem = await openOrder();
    const keyed = await approveAs(ravi, keyedItem.mailbox_id, { idempotency_key: key });
    const replayed = await approveAs(ravi, keyedItem.mailbox_id, { idempotency_key: key });
    expect(replayed.result).toMatchObject({ status: 'pending', idempotency_replayed: true, mailbox_decision_id: keyed.result!.mailbox_decision_id });
  });

  it('a reject by one allowed person ends the item after an approval', async () => {
    const item = await openOrder();
    await approveAs(rita, item.mailbox_id);
    const rejected = await server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'not convinced' }, { token: otto.secret });
    expect(rejected.result?.status).toBe('rejected');
    expect((await approveAs(ravi, item.mailbox_id)).error?.data.code).toBe('MAILBOX_NOT_PENDING');
    expect(await emittedBy(item.mailbox_id)).toBe(0);
  });

  it('the person who published the run is refused with FORBIDDEN, saying why', async () => {
    const item = await openOrder(otto.secret);
    const refused = await approveAs(otto, item.mailbox_id);
    expect(refused.error?.data).toMatchObject({ code: 'FORBIDDEN', retryable: false, details: { reason: 'started_the_run', run_id: item.run_id, user_id: otto.userId } });
    expect(refused.error?.message).toMatch(/^Otto Operator started run .* and may not approve its order_approval item/);
    expect((await server.rpc('mailbox.get', { mailbox_id: item.mailbox_id })).result!.approvals).toEqual([]);
  });

  it('a role or user the type does not name is refused with the roles and users that may decide', async () => {
    const item = await openOrder();
    // The server's own token is an admin's: admins are not among order_approval's deciders.
    const admin = await server.rpc('mailbox.approve', { mailbox_id: item.mailbox_id });
    expect(admin.error?.data).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'not_a_decider', allowed_roles: ['reviewer', 'operator'], allowed_user_ids: [], role: 'admin' } });
    const memo = await openItemOf(server, 'memo.filed', {});
    const byRole = await approveAs(rita, memo.mailbox_id);
    expect(byRole.error?.data).toMatchObject({ code: 'FORBIDDEN', details: { allowed_roles: [], allowed_user_ids: ['usr_memo_reader'], user_id: rita.userId } });
    expect(byRole.error?.message).toBe('memo_review items may be decided only by the users usr_memo_reader; Rita Reviewer is reviewer');
    expect((await approveAs(memoReader, memo.mailbox_id)).result?.status).toBe('approved');
  });
});
