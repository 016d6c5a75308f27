import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import type { Role } from '@switchboard/contract';
import type { Decider } from './mailbox';
import { bootFixture, minimalBundle, type Fixture } from './testing/runtime-fixture';
import { runUntilIdle } from './testing/run-until-idle';

/** A person deciding: their id doubles as their name. */
const person = (userId: string, role: Role = 'reviewer'): Decider => ({ userId, userName: userId, role });

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const approvalBundle = minimalBundle({
  events: {
    'refund.requested': {
      payload_schema: { type: 'object', required: ['order_id', 'amount'], properties: { order_id: { type: 'string' }, amount: { type: 'number' } } },
      subscribers: [
        { type: 'node', id: 'track-order' },
        { type: 'node', id: 'approve-refund' },
      ],
    },
    'refund.approved': { payload_schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } }, subscribers: [{ type: 'node', id: 'track-order' }] },
    'note.flagged': { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'review-note' }] },
  },
  nodes: {
    'track-order': { kind: 'entity_update', entity_type: 'order', entity_id: '$.order_id', set_fields: { amount: '$.amount' } },
    'approve-refund': { kind: 'approval_gate', mailbox_type: 'refund_approval', source_flow: 'refunds', escalate_when: 'amount > 100' },
    'review-note': { kind: 'approval_gate', mailbox_type: 'note_review', priority: 'low', source_flow: 'notes' },
  },
  entity_types: { order: { initial_state: 'new', states: ['new', 'requested', 'approved'], transitions: { 'refund.requested': 'requested', 'refund.approved': 'approved' }, gates: { small: 'amount <= 100', named: "customer != ''" } } },
  approval_routes: { refund_approval: { emit: 'refund.approved' } },
});

async function openItem(f: Fixture, amount = 40, entityId = 'order-o-1') {
  const res = await f.runtime.publish({ event_name: 'refund.requested', payload: { order_id: 'o-1', amount }, entity_id: entityId });
  await runUntilIdle(f.runtime);
  const item = await databaseOf(f.store).selectFrom('mailbox_items').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
  return { res, item };
}

describe('approval gate and mailbox decisions', () => {
  it('an approval gate opens a pending item with a "created" history entry by the runtime', async () => {
    fx = await bootFixture(approvalBundle);
    const { res, item } = await openItem(fx, 250);
    expect(item).toMatchObject({ status: 'pending', type: 'refund_approval', priority: 'high', source_flow: 'refunds', source_entity_id: 'order-o-1', source_event_id: res.event_id, run_id: res.run_id });
    expect(JSON.parse(item.payload)).toEqual({ order_id: 'o-1', amount: 250 });
    const history = await databaseOf(fx.store).selectFrom('mailbox_history').selectAll().execute();
    expect(history).toEqual([expect.objectContaining({ mailbox_id: item.mailbox_id, action: 'created', actor_token_id: 'runtime' })]);
  });

  it('approve emits the route event in the same run with the source entity; the run reopens and settles', async () => {
    fx = await bootFixture(approvalBundle);
    const { res, item } = await openItem(fx);
    const out = await fx.runtime.approveMailboxItem({ mailbox_id: item.mailbox_id, reason: 'fine', override_note: 'customer on file elsewhere', decision_payload: { amount: 35 }, expected_entity_revision: 1, actorTokenId: 'tok_1', decider: person('tok_1') });
    expect(out).toMatchObject({ ok: true, status: 'approved', downstream_event_name: 'refund.approved', downstream_subscriber_source: 'event_catalog', downstream_subscribers: ['track-order'] });
    const ev = await databaseOf(fx.store).selectFrom('events').selectAll().where('event_id', '=', out.downstream_event_id!).executeTakeFirstOrThrow();
    expect(ev).toMatchObject({ run_id: res.run_id, entity_id: 'order-o-1', chain_depth: 1, parent_event_id: res.event_id, source: `mailbox:${item.mailbox_id}` });
    expect(JSON.parse(ev.payload)).toEqual({ order_id: 'o-1', amount: 35 });
    expect((await databaseOf(fx.store).selectFrom('runs').select('status').executeTakeFirstOrThrow()).status).toBe('running');
    await runUntilIdle(fx.runtime);
    expect((await databaseOf(fx.store).selectFrom('runs').select('status').executeTakeFirstOrThrow()).status).toBe('completed');
    const entity = await databaseOf(fx.store).selectFrom('entities').selectAll().executeTakeFirstOrThrow();
    expect(entity).toMatchObject({ current_state: 'approved', revision: 2 });
    const history = await databaseOf(fx.store).selectFrom('mailbox_history').selectAll().where('action', '=', 'approved').executeTakeFirstOrThrow();
    expect(history).toMatchObject({ actor_token_id: 'tok_1', reason: 'fine', decision_id: out.mailbox_decision_id, override_note: 'customer on file elsewhere' });
    expect(JSON.parse(history.overridden_gates!)).toEqual([{ gate: 'named', summary: 'customer is not set', detail: 'customer is not set' }]);
    expect(JSON.parse(history.decision_payload!)).toEqual({ amount: 35 });
  });

  it('two concurrent rejects: exactly one wins, the other gets MAILBOX_NOT_PENDING; reject emits nothing', async () => {
    fx = await bootFixture(approvalBundle);
    const { item } = await openItem(fx);
    const eventsBefore = await databaseOf(fx.store).selectFrom('events').select('event_id').execute();
    const results = await Promise.allSettled([
      fx.runtime.rejectMailboxItem({ mailbox_id: item.mailbox_id, reason: 'no', actorTokenId: 'tok_a', decider: person('tok_a') }),
      fx.runtime.rejectMailboxItem({ mailbox_id: item.mailbox_id, reason: 'nope', actorTokenId: 'tok_b', decider: person('tok_b') }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'MAILBOX_NOT_PENDING', details: { status: 'rejected' } });
    const history = await databaseOf(fx.store).selectFrom('mailbox_history').selectAll().where('action', '=', 'rejected').execute();
    expect(history).toHaveLength(1);
    const after = await databaseOf(fx.store).selectFrom('mailbox_items').selectAll().executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'rejected', decision: 'rejected' });
    expect(after.decided_at).not.toBeNull();
    expect(await databaseOf(fx.store).selectFrom('events').select('event_id').execute()).toHaveLength(eventsBefore.length);
  });

  it('concurrent approve and reject: one winner, and the event exists only if approve won', async () => {
    fx = await bootFixture(approvalBundle);
    const { item } = await openItem(fx);
    const results = await Promise.allSettled([
      fx.runtime.approveMailboxItem({ mailbox_id: item.mailbox_id, override_note: 'no customer yet', actorTokenId: 'a', decider: person('a') }),
      fx.runtime.rejectMailboxItem({ mailbox_id: item.mailbox_id, reason: 'x', actorTokenId: 'b', decider: person('b') }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const approvedEvents = await databaseOf(fx.store).selectFrom('events').select('event_id').where('event_name', '=', 'refund.approved').execute();
    expect(approvedEvents).toHaveLength(results[0]!.status === 'fulfilled' ? 1 : 0);
  });

  it('a stale expected_entity_revision is refused with STALE_DECISION_SHEET and changes nothing', async () => {
    fx = await bootFixture(approvalBundle);
    const { item } = await openItem(fx);
    await fx.runtime.publish({ event_name: 'refund.requested', payload: { order_id: 'o-1', amount: 41 }, entity_id: 'order-o-1' });
    await runUntilIdle(fx.runtime);
    await expect(fx.runtime.approveMailboxItem({ mailbox_id: item.mailbox_id, expected_entity_revision: 1, actorTokenId: 'a', decider: person('a') })).rejects.toMatchObject({
      code: 'STALE_DECISION_SHEET',
      details: { expected: 1, actual: 2 },
    });
    const still = await databaseOf(fx.store).selectFrom('mailbox_items').select('status').where('mailbox_id', '=', item.mailbox_id).executeTakeFirstOrThrow();
    expect(still.status).toBe('pending');
  });

  it('unknown ids are NOT_FOUND', async () => {
    fx = await bootFixture(approvalBundle);
    await expect(fx.runtime.rejectMailboxItem({ mailbox_id: 'mbx_x', reason: 'r', actorTokenId: 'a', decider: person('a') })).rejects.toMatchObject({ code: 'NOT_FOUND', details: { resource: 'mailbox_item', id: 'mbx_x' } });
    await expect(fx.runtime.decisionSheet('mbx_x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('decision sheet: downstream preview from the catalog and entity context with gates', async () => {
    fx = await bootFixture(approvalBundle);
    const { item } = await openItem(fx, 250);
    const sheet = await fx.runtime.decisionSheet(item.mailbox_id);
    expect(sheet.downstream_preview).toEqual({ available: true, subscriber_source: 'event_catalog', event_name: 'refund.approved', subscribers: ['track-order'] });
    expect(sheet.entity_context.available).toBe(true);
    expect(sheet.entity_context.entity!.entity).toMatchObject({ entity_id: 'order-o-1', entity_type: 'order', current_state: 'requested', revision: 1 });
    expect(sheet.entity_context.entity!.fields).toEqual({ amount: 250 });
    expect(sheet.entity_context.entity!.gates.small).toEqual({ passed: false, summary: '250 > 100', detail: 'amount = 250; requires amount <= 100' });
    expect(sheet.entity_context.entity!.gates.named).toMatchObject({ passed: false, detail: 'customer is not set' });
  });

  it('decision sheet: no_approval_route and no_source_entity', async () => {
    fx = await bootFixture(approvalBundle);
    await fx.runtime.publish({ event_name: 'note.flagged', payload: {} });
    await runUntilIdle(fx.runtime);
    const item = await databaseOf(fx.store).selectFrom('mailbox_items').selectAll().executeTakeFirstOrThrow();
    const sheet = await fx.runtime.decisionSheet(item.mailbox_id);
    expect(sheet).toEqual({
      downstream_preview: { available: false, subscriber_source: 'event_catalog', subscribers: [], reason: 'no_approval_route' },
      entity_context: { available: false, reason: 'no_source_entity' },
    });
    const out = await fx.runtime.approveMailboxItem({ mailbox_id: item.mailbox_id, actorTokenId: 'a', decider: person('a') });
    expect(out.downstream_event_id).toBeUndefined();
    expect(out.status).toBe('approved');
  });
});
