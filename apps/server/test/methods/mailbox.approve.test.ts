/**
 * mailbox.approve, and approve racing reject on one item over real HTTP against the real runtime (the control test bundle): every error code it
 * can return, idempotent replays and the concurrency guarantees; and the two-person rule, each
 * person with a token of their own (two-person test bundle): what mailbox.get shows, what each
 * approve answers, who is refused and why, on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorRegistry } from '@switchboard/contract';
import { databaseOf } from '@switchboard/store/testing';
import { startTestServer, type TestServer } from '../harness';
import { addPerson, openItemOf, TWO_PERSON_BUNDLE, type TestPerson } from '../two-person-helpers';
import { keyMaker, withControlServer } from './method-servers';
import { count, fails, ok, openOrderItem, waitForQuiet } from '../control-helpers';

let server: TestServer;
let tokenId: string;
let token: { id: string; name: string };
withControlServer(async (s) => {
  server = s;
  const t = (await server.store.tokens.list())[0]!;
  tokenId = t.id;
  token = { id: t.id, name: t.name };
});
const newKey = keyMaker('apr');

describe('mailbox.approve', () => {
  it("emits the approval route's event and returns its id, name, subscribers and source", async () => {
    const item = await openOrderItem(server, 'A1', 42);
    await waitForQuiet(server);
    const result = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, reason: 'fine' });
    expect(result).toEqual({
      ok: true,
      status: 'approved',
      mailbox_decision_id: expect.stringMatching(/^dec_/),
      idempotency_replayed: false,
      downstream_event_id: expect.stringMatching(/^evt_/),
      downstream_event_name: 'order.approved',
      downstream_subscribers: ['mark-approved'],
      downstream_subscriber_source: 'event_catalog',
      approvals: [{ user_id: expect.stringMatching(/^usr_/), user_name: expect.any(String), at: expect.any(String) }],
      approvals_required: 1,
    });
    const { events } = await ok(server, 'event.list', { filter: { event_id: result.downstream_event_id } });
    expect(events[0]).toMatchObject({ event_name: 'order.approved', entity_id: item.entity_id, run_id: item.run_id, payload: { order_id: 'A1', amount: 42 } });
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.history.find((h: any) => h.action === 'approved')).toMatchObject({ actor_token_id: tokenId, reason: 'fine' });
    await waitForQuiet(server);
    const entity = await databaseOf(server.store).selectFrom('entities').selectAll().where('entity_id', '=', item.entity_id).executeTakeFirstOrThrow();
    expect(entity.current_state).toBe('approved');
  });

  it('STALE_DECISION_SHEET when the entity moved past expected_entity_revision; the current revision is accepted', async () => {
    const item = await openOrderItem(server, 'A2');
    await waitForQuiet(server);
    const sheet = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).decision_sheet;
    const revision = sheet.entity_context.entity!.entity.revision as number;
    const stale = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: revision - 1 }, 'STALE_DECISION_SHEET');
    expect(stale.data.details).toEqual({ expected: revision - 1, actual: revision });
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
    const approved = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: revision });
    expect(approved.status).toBe('approved');
  });

  it('INVALID_PARAMS when the decision payload does not fit the emitted event; the item stays pending', async () => {
    const item = await openOrderItem(server, 'A5');
    const error = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, decision_payload: { amount: 'lots' } }, 'INVALID_PARAMS');
    expect(error.data.details.issues?.[0]?.path).toMatch(/^decision_payload/);
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
    await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: 1.5 }, 'INVALID_PARAMS');
  });

  it('MAILBOX_NOT_PENDING after a decision, NOT_FOUND for an unknown item', async () => {
    const item = await openOrderItem(server, 'A3');
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'no', reason_code: 'other' });
    const error = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id }, 'MAILBOX_NOT_PENDING');
    expect(error.data.details.status).toBe('rejected');
    await fails(server, 'mailbox.approve', { mailbox_id: 'mbx_nope' }, 'NOT_FOUND');
  });

  it('replays with idempotency_replayed true (no second event) and conflicts on a different body', async () => {
    const item = await openOrderItem(server, 'A4');
    const key = newKey();
    const first = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, idempotency_key: key });
    const replay = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, idempotency_key: key });
    expect(replay).toEqual({ ...first, idempotency_replayed: true });
    await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, reason: 'changed', idempotency_key: key }, 'IDEMPOTENCY_CONFLICT');
    expect(await count(server, 'events', ['event_name', 'order.approved'])).toBeGreaterThan(0);
    const approvals = await databaseOf(server.store).selectFrom('events').select('event_id').where('source', '=', `mailbox:${item.mailbox_id}`).execute();
    expect(approvals).toHaveLength(1);
  });
});

describe('approving past failing gates', () => {
  it('GATE_OVERRIDE_REQUIRED without an override note: stable, not retryable, naming the failing gates; nothing decided or emitted', async () => {
    const item = await openOrderItem(server, 'G1', 607.54);
    await waitForQuiet(server);
    const eventsBefore = await count(server, 'events');
    for (const params of [{}, { reason: 'looks fine' }, { override_note: '   ' }]) {
      const error = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, ...params }, params.override_note ? 'INVALID_PARAMS' : 'GATE_OVERRIDE_REQUIRED');
      if (params.override_note) continue;
      expect(error.code).toBe(-32032);
      expect(error.data.retryable).toBe(false);
      expect(error.message).toBe('1 of 2 gates fail: within_limit, 607.54 > 500; send override_note to approve anyway');
      expect(error.data.details).toEqual({
        failing_gates: [{ gate: 'within_limit', summary: '607.54 > 500', detail: 'amount = 607.54; requires amount <= 500' }],
        gates_total: 2,
        entity_id: item.entity_id,
      });
    }
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.item.status).toBe('pending');
    expect(got.decision_sheet.entity_context.entity!.gates.within_limit).toEqual({ passed: false, summary: '607.54 > 500', detail: 'amount = 607.54; requires amount <= 500' });
    expect(await count(server, 'events')).toBe(eventsBefore);
  });

  it('an override note approves anyway; the note and the gates it overrode are kept in the history', async () => {
    const item = await openOrderItem(server, 'G2', 607.54);
    await waitForQuiet(server);
    const result = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, override_note: '  Goodwill: customer of ten years  ', reason: 'ok' });
    expect(result).toMatchObject({ status: 'approved', downstream_event_name: 'order.approved' });
    const entry = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).history.find((h) => h.action === 'approved');
    expect(entry).toMatchObject({
      actor_token_id: tokenId,
      reason: 'ok',
      override_note: 'Goodwill: customer of ten years',
      overridden_gates: [{ gate: 'within_limit', summary: '607.54 > 500', detail: 'amount = 607.54; requires amount <= 500' }],
    });
  });

  it('items whose gates all pass need no note and keep no override', async () => {
    const item = await openOrderItem(server, 'G3', 500);
    await waitForQuiet(server);
    await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id });
    const entry = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).history.find((h) => h.action === 'approved');
    expect(entry).not.toHaveProperty('override_note');
    expect(entry).not.toHaveProperty('overridden_gates');
  });
});

describe('concurrent decisions on one item', () => {
  it('exactly one of two concurrent decisions wins; the other gets MAILBOX_NOT_PENDING', async () => {
    const items = [];
    for (let i = 0; i < 6; i++) items.push(await openOrderItem(server, `C${i}`));
    for (const [i, item] of items.entries()) {
      const calls =
        i % 2 === 0
          ? [server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'a', reason_code: 'other' }), server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'b', reason_code: 'other' })]
          : [server.rpc('mailbox.approve', { mailbox_id: item.mailbox_id }), server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'b', reason_code: 'other' })];
      const answers = await Promise.all(calls);
      const wins = answers.filter((a) => a.result?.ok === true);
      const losses = answers.filter((a) => a.error?.data.code === 'MAILBOX_NOT_PENDING');
      expect({ wins: wins.length, losses: losses.length }).toEqual({ wins: 1, losses: 1 });
      const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
      expect(got.item.status).toBe(wins[0]!.result!.status);
      // The decision and its history entry committed together, once.
      expect(got.history.filter((h: any) => h.action === 'approved' || h.action === 'rejected')).toHaveLength(1);
      const emitted = await databaseOf(server.store).selectFrom('events').select('event_id').where('source', '=', `mailbox:${item.mailbox_id}`).execute();
      expect(emitted).toHaveLength(wins[0]!.result!.status === 'approved' ? 1 : 0);
    }
  });
});

describe('decisions as they were seen', () => {
  it('an approved item keeps its sheet as decided while the entity moves on, and the payload it emitted', async () => {
    const item = await openOrderItem(server, 'SEEN1', 42);
    await waitForQuiet(server);
    const before = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(before.decided_sheet).toBeUndefined();
    const revision = before.decision_sheet.entity_context.entity!.entity.revision;
    const approved = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: revision });
    await waitForQuiet(server);

    const after = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    // The approval's event moved the entity on: "now" differs, "at decision" is what the approver saw.
    expect(after.decision_sheet.entity_context.entity!.entity.revision).toBeGreaterThan(revision);
    expect(after.decision_sheet.entity_context.entity!.entity.current_state).toBe('approved');
    expect(after.decided_sheet).toEqual(before.decision_sheet);
    expect(after.emitted_payload).toEqual(before.payload);
    expect(after.emitted_event_id).toBe(approved.downstream_event_id);
    const entry = after.history.find((h) => h.action === 'approved')!;
    expect(entry).toMatchObject({ actor_token_id: token.id, actor_token_name: token.name });
  });
});

describe('the two-person rule', () => {
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
});
