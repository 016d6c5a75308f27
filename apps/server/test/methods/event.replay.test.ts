/**
 * The replay guards of issue 36 on the control bundle: subscribers the bundle marks side_effects
 * (charge-card) are named by the catalog and the estimate, the estimate says how far each sampled
 * event's entity moved on since it, and event.replays lists what a replay published.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { ok, waitFor, waitForQuiet } from '../control-helpers';
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

  it('event.replays lists the events a replay published of an event, with their runs', async () => {
    const published = await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { guard: 2 } });
    await waitForQuiet(server);
    expect((await ok(server, 'event.replays', { event_id: published.event_id! })).replays).toEqual([]);
    const estimate = await ok(server, 'event.replay', { dry_run: true, event_ids: [published.event_id!], subscriber_ids: ['note-charge'] });
    const applied = await ok(server, 'event.replay', { dry_run: false, event_ids: [published.event_id!], subscriber_ids: ['note-charge'], expected_plan_hash: estimate.plan.plan_hash });
    let replayed: { event_id: string; run_id?: string; created_at: string }[] = [];
    await waitFor(async () => {
      replayed = (await ok(server, 'event.replays', { event_id: published.event_id! })).replays;
      return replayed.length === 1;
    }, 15_000, 'the replay');
    const item = (await ok(server, 'operation.get', { operation_id: applied.operation!.operation_id })).items[0]!;
    expect(replayed[0]).toMatchObject({ event_id: item.result_id, run_id: expect.stringMatching(/^run_/) });
    expect(replayed[0]!.run_id).not.toBe(published.run_id);
    // The original run's tree shows the replay, in its own run.
    const tree = await ok(server, 'run.tree', { run_id: published.run_id });
    expect(tree.replays).toEqual([{ event_id: item.result_id, run_id: replayed[0]!.run_id, replay_of_event_id: published.event_id }]);
  });
});
