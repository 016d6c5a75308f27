/**
 * event.replay over real HTTP on the control bundle: each replayed event runs in a new run that
 * records what it replays, a replay waits while ingress is paused, and the replay guards of issue
 * 36: subscribers the bundle marks side_effects (charge-card) are named by the catalog and the
 * estimate, and the estimate says how far each sampled event's entity moved on since it.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { deadLettersOf, finished, publishCharges } from './dead-letter-operations';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('replay guards', () => {
  it('the catalog and the estimate name the side-effect subscribers, even when the plan leaves them out', async () => {
    const { events } = await ok(server, 'runtime.catalog', {});
    expect(events.find((e) => e.name === 'charge.requested')!.subscribers).toEqual([
      { type: 'node', id: 'charge-card', side_effects: true },
      { type: 'node', id: 'note-charge' },
    ]);
    const published = await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { guard: 1 } });
    await waitForQuiet(server);
    const all = await ok(server, 'event.replay', { dry_run: true, event_ids: [published.event_id!] });
    expect(all.plan.side_effect_subscribers).toEqual(['charge-card']);
    expect(all.plan.by_subscriber.map((s) => s.subscriber_id).sort()).toEqual(['charge-card', 'note-charge']);
    const safe = await ok(server, 'event.replay', { dry_run: true, event_ids: [published.event_id!], subscriber_ids: ['note-charge'] });
    expect(safe.plan.side_effect_subscribers).toEqual(['charge-card']);
    expect(safe.plan.by_subscriber).toEqual([{ subscriber_id: 'note-charge', count: 1 }]);
  });

  it("the estimate shows the entity's revision then (once the event was handled) and now", async () => {
    const entity_id = `order-RV-${Date.now()}`;
    const first = await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: 'RV', amount: 10 }, entity_id });
    await waitForQuiet(server);
    const second = await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: 'RV', amount: 20 }, entity_id });
    await waitForQuiet(server);
    const estimate = await ok(server, 'event.replay', { dry_run: true, event_ids: [first.event_id!, second.event_id!], subscriber_ids: ['record-order'] });
    expect(estimate.plan.entity_revisions).toEqual(
      expect.arrayContaining([
        { event_id: first.event_id, entity_id, revision_then: 1, revision_now: 2 },
        { event_id: second.event_id, entity_id, revision_then: 2, revision_now: 2 },
      ]),
    );
    expect(estimate.plan.side_effect_subscribers).toEqual([]);
  });
});

describe('event.replay', () => {
  it('replays events to a named subscriber, each in a new run that records what it replays', async () => {
    const ids = await publishCharges(server, 3, 'replay');
    const estimate = await ok(server, 'event.replay', { dry_run: true, event_ids: ids, subscriber_ids: ['note-charge'] });
    expect(estimate.plan).toMatchObject({ kind: 'replay', matched: 3, to_send: 3, deliveries: 3 });
    expect(estimate.plan.by_subscriber).toEqual([{ subscriber_id: 'note-charge', count: 3 }]);
    const applied = await ok(server, 'event.replay', { dry_run: false, event_ids: ids, subscriber_ids: ['note-charge'], expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100 });
    const op = await finished(server, applied.operation!.operation_id);
    expect(op.counts.done).toBe(3);
    await waitForQuiet(server);
    const items = (await ok(server, 'operation.get', { operation_id: op.operation_id })).items;
    for (const item of items) {
      const { events } = await ok(server, 'event.list', { filter: { event_id: item.result_id! } });
      const replayed = events[0]!;
      expect(replayed.replay_of_event_id).toBe(item.target_id);
      expect(replayed.deliveries.map((d) => [d.subscriber_id, d.status])).toEqual([['note-charge', 'delivered']]);
      const original = (await ok(server, 'event.list', { filter: { event_id: item.target_id } })).events[0]!;
      expect(replayed.run_id).not.toBe(original.run_id);
      expect(replayed.payload).toEqual(original.payload);
    }
  });

  it('a replay waits while ingress is paused, and runs on resume', async () => {
    const ids = await publishCharges(server, 2, 'paused-replay');
    await ok(server, 'runtime.pause', { reason: 'replay test' });
    try {
      const estimate = await ok(server, 'event.replay', { dry_run: true, event_ids: ids, subscriber_ids: ['note-charge'] });
      const replay = await ok(server, 'event.replay', { dry_run: false, event_ids: ids, subscriber_ids: ['note-charge'], expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 100 });
      // Signal that the runner has had its chances: a redrive it runs meanwhile completes.
      const other = await deadLettersOf(server, ids);
      const otherSel = { dead_letter_ids: other.map((l) => l.dead_letter_id) };
      const otherEstimate = await ok(server, 'event.redrive', { dry_run: true, ...otherSel });
      const otherOp = await ok(server, 'event.redrive', { dry_run: false, ...otherSel, expected_plan_hash: otherEstimate.plan.plan_hash, rate_per_second: 100 });
      await finished(server, otherOp.operation!.operation_id);
      const waiting = await ok(server, 'operation.get', { operation_id: replay.operation!.operation_id });
      expect(waiting.operation).toMatchObject({ status: 'running', counts: { total: 2, done: 0 } });
      await ok(server, 'runtime.resume');
      const done = await finished(server, replay.operation!.operation_id);
      expect(done.counts.done).toBe(2);
    } finally {
      if ((await ok(server, 'runtime.status')).ingress === 'paused') await ok(server, 'runtime.resume');
    }
  });

  it('refuses an apply without a plan hash with INVALID_PARAMS, replaying nothing', async () => {
    const [id] = await publishCharges(server, 1, 'replay-refused');
    await fails(server, 'event.replay', { dry_run: false, event_ids: [id] }, 'INVALID_PARAMS');
    expect((await ok(server, 'event.replays', { event_id: id! })).replays).toEqual([]);
  });
});

describe('replay selected by payload conditions', () => {
  it('the estimate selects exactly the events event.list shows for the same payload filter', async () => {
    const tag = `PL-${Date.now()}`;
    for (const amount of [10, 20, 30]) await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: tag, amount } });
    await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: `${tag}-other`, amount: 20 } });
    await waitForQuiet(server);
    const filter = { event_name: 'order.placed', payload: [{ path: 'order_id', op: 'eq' as const, value: tag }, { path: 'amount', op: 'in' as const, value: [20, 30] }] };
    const listed = await ok(server, 'event.list', { filter });
    expect(listed.events.map((e) => e.payload.amount)).toEqual([30, 20]);
    const estimate = await ok(server, 'event.replay', { dry_run: true, filter });
    expect(estimate.plan.matched).toBe(2);
    expect(estimate.plan.sample.map((s) => s.event_id)).toEqual(listed.events.map((e) => e.event_id));
  });
});
