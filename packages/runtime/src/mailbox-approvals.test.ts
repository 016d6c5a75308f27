/**
 * The two-person rule in the runtime, on the test engine (SQLite, or PostgreSQL with
 * SWITCHBOARD_TEST_DATABASE_URL): approvals per person, who may decide, the run's starter, and
 * exactly one downstream event however the approvals interleave.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Role } from '@switchboard/contract';
import { databaseOf } from '@switchboard/store/testing';
import type { Decider } from './mailbox';
import { bootFixture, minimalBundle, type Fixture } from './testing/runtime-fixture';
import { runUntilIdle } from './testing/run-until-idle';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const person = (userId: string, role: Role = 'reviewer'): Decider => ({ userId, userName: `Name of ${userId}`, role });
const alice = person('usr_alice');
const bob = person('usr_bob');
const carol = person('usr_carol', 'reviewer');
const olga = person('usr_olga', 'operator');

const twoPersonBundle = minimalBundle({
  events: {
    'refund.requested': {
      payload_schema: { type: 'object', required: ['order_id', 'amount'], properties: { order_id: { type: 'string' }, amount: { type: 'number' } } },
      subscribers: [
        { type: 'node', id: 'track-order' },
        { type: 'node', id: 'approve-refund' },
      ],
    },
    'refund.approved': { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'track-order' }] },
    'note.flagged': { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'review-note' }] },
    'memo.filed': { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'review-memo' }] },
  },
  nodes: {
    'track-order': { kind: 'entity_update', entity_type: 'order', entity_id: '$.order_id', set_fields: { amount: '$.amount' } },
    'approve-refund': { kind: 'approval_gate', mailbox_type: 'refund_approval', source_flow: 'refunds' },
    'review-note': { kind: 'approval_gate', mailbox_type: 'note_review', source_flow: 'notes' },
    'review-memo': { kind: 'approval_gate', mailbox_type: 'memo_review', source_flow: 'memos' },
  },
  entity_types: { order: { initial_state: 'new', states: ['new', 'requested', 'approved'], transitions: { 'refund.requested': 'requested', 'refund.approved': 'approved' } } },
  approval_routes: { refund_approval: { emit: 'refund.approved' } },
  mailbox_types: {
    refund_approval: { deciders: { roles: ['reviewer', 'admin'] }, approvals_required: 2 },
    note_review: { deciders: { roles: ['operator'], users: ['usr_carol'] } },
  },
});

let orders = 0;
async function openRefund(f: Fixture, startedByUserId?: string) {
  const orderId = `o-${++orders}`;
  const res = await f.runtime.publish({ event_name: 'refund.requested', payload: { order_id: orderId, amount: 40 }, entity_id: `order-${orderId}`, startedByUserId });
  await runUntilIdle(f.runtime);
  return databaseOf(f.store).selectFrom('mailbox_items').selectAll().where('run_id', '=', res.run_id).executeTakeFirstOrThrow();
}

async function openOf(f: Fixture, eventName: 'note.flagged' | 'memo.filed', startedByUserId?: string) {
  const res = await f.runtime.publish({ event_name: eventName, payload: {}, startedByUserId });
  await runUntilIdle(f.runtime);
  return databaseOf(f.store).selectFrom('mailbox_items').selectAll().where('run_id', '=', res.run_id).executeTakeFirstOrThrow();
}

const approve = (f: Fixture, mailboxId: string, decider: Decider) => f.runtime.approveMailboxItem({ mailbox_id: mailboxId, actorTokenId: `tok_of_${decider.userId}`, decider });

async function emittedBy(f: Fixture, mailboxId: string): Promise<number> {
  const rows = await databaseOf(f.store).selectFrom('events').select('event_id').where('source', '=', `mailbox:${mailboxId}`).execute();
  return rows.length;
}

describe('two approvals from different people', () => {
  it('the first approval leaves the item pending with one approval; the second decides it and emits once', async () => {
    fx = await bootFixture(twoPersonBundle);
    const item = await openRefund(fx);
    const first = await approve(fx, item.mailbox_id, alice);
    expect(first).toMatchObject({ ok: true, status: 'pending', approvals_required: 2, approvals: [{ user_id: 'usr_alice', user_name: 'Name of usr_alice' }] });
    expect(first.downstream_event_id).toBeUndefined();
    expect(await emittedBy(fx, item.mailbox_id)).toBe(0);
    const db = databaseOf(fx.store);
    expect(await db.selectFrom('mailbox_items').select(['status', 'approvals_count']).where('mailbox_id', '=', item.mailbox_id).executeTakeFirstOrThrow()).toEqual({ status: 'pending', approvals_count: 1 });
    expect(await db.selectFrom('mailbox_history').select('action').where('mailbox_id', '=', item.mailbox_id).execute()).toEqual([{ action: 'created' }]);
    expect((await fx.runtime.mailbox.approvalState(item)).approvals.map((a) => a.user_name)).toEqual(['Name of usr_alice']);
    expect(await db.selectFrom('mailbox_approvals').select(['user_id', 'role', 'token_id', 'decision_id']).where('mailbox_id', '=', item.mailbox_id).execute()).toEqual([
      { user_id: 'usr_alice', role: 'reviewer', token_id: 'tok_of_usr_alice', decision_id: first.mailbox_decision_id },
    ]);

    const second = await approve(fx, item.mailbox_id, bob);
    expect(second).toMatchObject({ status: 'approved', downstream_event_name: 'refund.approved', approvals_required: 2 });
    expect(second.approvals!.map((a) => a.user_id)).toEqual(['usr_alice', 'usr_bob']);
    expect(await emittedBy(fx, item.mailbox_id)).toBe(1);
    const history = await db.selectFrom('mailbox_history').select(['action', 'actor_token_id']).where('mailbox_id', '=', item.mailbox_id).orderBy('seq').execute();
    expect(history).toEqual([
      { action: 'created', actor_token_id: 'runtime' },
      { action: 'approved', actor_token_id: 'tok_of_usr_bob' },
    ]);
    await expect(approve(fx, item.mailbox_id, carol)).rejects.toMatchObject({ code: 'MAILBOX_NOT_PENDING' });
  });

  it('the same person cannot approve twice: ALREADY_APPROVED, and the refused call counts nothing', async () => {
    fx = await bootFixture(twoPersonBundle);
    const item = await openRefund(fx);
    await approve(fx, item.mailbox_id, alice);
    const again = await approve(fx, item.mailbox_id, alice).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'ALREADY_APPROVED', details: { approvals_required: 2, approvals: [{ user_id: 'usr_alice' }] } });
    expect((again as Error).message).toMatch(/Name of usr_alice already approved .*refund_approval needs 2 approvals from different people/);
    const row = await databaseOf(fx.store).selectFrom('mailbox_items').select(['status', 'approvals_count']).where('mailbox_id', '=', item.mailbox_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', approvals_count: 1 });
    expect(await emittedBy(fx, item.mailbox_id)).toBe(0);
  });

  it('a reject by an allowed person ends the item, approvals so far or not', async () => {
    fx = await bootFixture(twoPersonBundle);
    const item = await openRefund(fx);
    await approve(fx, item.mailbox_id, alice);
    const rejected = await fx.runtime.rejectMailboxItem({ mailbox_id: item.mailbox_id, reason: 'not convinced', actorTokenId: 'tok_b', decider: bob });
    expect(rejected.status).toBe('rejected');
    await expect(approve(fx, item.mailbox_id, carol)).rejects.toMatchObject({ code: 'MAILBOX_NOT_PENDING', details: { status: 'rejected' } });
    expect(await emittedBy(fx, item.mailbox_id)).toBe(0);
  });

  it('the person who started the run may not approve its item; others may', async () => {
    fx = await bootFixture(twoPersonBundle);
    const item = await openRefund(fx, 'usr_alice');
    const refused = await approve(fx, item.mailbox_id, alice).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'started_the_run', run_id: item.run_id, user_id: 'usr_alice' } });
    expect((await databaseOf(fx.store).selectFrom('runs').select('started_by_user_id').where('run_id', '=', item.run_id!).executeTakeFirstOrThrow()).started_by_user_id).toBe('usr_alice');
    expect((await fx.runtime.mailbox.approvalState(item)).run_started_by_user_id).toBe('usr_alice');
    await approve(fx, item.mailbox_id, bob);
    expect((await approve(fx, item.mailbox_id, carol)).status).toBe('approved');
    // A type the bundle does not declare keeps the v1 rule: the publisher approves their own item.
    const memo = await openOf(fx, 'memo.filed', 'usr_alice');
    expect((await fx.runtime.mailbox.approvalState(memo)).run_started_by_user_id).toBeNull();
    expect((await approve(fx, memo.mailbox_id, alice)).status).toBe('approved');
  });

  it('a person the type does not allow is refused, naming the roles and users that may decide', async () => {
    fx = await bootFixture(twoPersonBundle);
    const note = await openOf(fx, 'note.flagged');
    const refused = await approve(fx, note.mailbox_id, bob).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'not_a_decider', mailbox_type: 'note_review', allowed_roles: ['operator'], allowed_user_ids: ['usr_carol'], role: 'reviewer', user_id: 'usr_bob' },
    });
    expect((refused as Error).message).toBe('note_review items may be decided only by the roles operator or the users usr_carol; Name of usr_bob is reviewer');
    await expect(fx.runtime.rejectMailboxItem({ mailbox_id: note.mailbox_id, reason: 'no', actorTokenId: 'tok_b', decider: bob })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    // By role (an operator), by user id (carol is a reviewer); roles match exactly, so admins are out.
    expect((await approve(fx, note.mailbox_id, olga)).status).toBe('approved');
    const byUser = await openOf(fx, 'note.flagged');
    expect((await approve(fx, byUser.mailbox_id, carol)).status).toBe('approved');
    const refund = await openRefund(fx);
    await expect(approve(fx, refund.mailbox_id, olga)).rejects.toMatchObject({ code: 'FORBIDDEN', details: { allowed_roles: ['reviewer', 'admin'] } });
  });

  it('two people approving at the same moment, many times: exactly one event per item, every item approved', async () => {
    fx = await bootFixture(twoPersonBundle);
    const rounds = 15;
    for (let round = 0; round < rounds; round++) {
      const item = await openRefund(fx);
      const answers = await Promise.allSettled([approve(fx, item.mailbox_id, alice), approve(fx, item.mailbox_id, bob)]);
      expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled']);
      const statuses = answers.map((a) => (a as PromiseFulfilledResult<{ status: string }>).value.status).sort();
      expect(statuses).toEqual(['approved', 'pending']);
      expect(await emittedBy(fx, item.mailbox_id)).toBe(1);
    }
  });
});
