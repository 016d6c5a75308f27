/**
 * mailbox.approve, and approve racing reject on one item over real HTTP against the real runtime (the control test bundle): every error code it
 * can return, idempotent replays and the concurrency guarantees.
 */
import { describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import type { TestServer } from '../harness';
import { keyMaker, withControlServer } from './method-servers';
import { count, fails, ok, openOrderItem, waitForQuiet } from '../control-helpers';

let server: TestServer;
let tokenId: string;
withControlServer(async (s) => {
  server = s;
  tokenId = (await server.store.tokens.list())[0]!.id;
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
