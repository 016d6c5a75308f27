/** event.replays: the events a replay published of an event, with their runs, on the control test bundle. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('event.replays', () => {
  it('refuses a missing event_id with INVALID_PARAMS', async () => {
    await fails(server, 'event.replays', {}, 'INVALID_PARAMS');
  });

  it('event.replays lists the events a replay published of an event, with their runs', async () => {
    const published = await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { guard: 2 } });
    await waitForQuiet(server);
    expect((await ok(server, 'event.replays', { event_id: published.event_id! })).replays).toEqual([]);
    const estimate = await ok(server, 'event.replay', { dry_run: true, event_ids: [published.event_id!], subscriber_ids: ['note-charge'] });
    const applied = await ok(server, 'event.replay', { dry_run: false, event_ids: [published.event_id!], subscriber_ids: ['note-charge'], expected_plan_hash: estimate.plan.plan_hash });
    let replayed: { event_id: string; run_id?: string; created_at: string }[] = [];
    await expect.poll(async () => {
      replayed = (await ok(server, 'event.replays', { event_id: published.event_id! })).replays;
      return replayed.length === 1;
    }, { timeout: 15_000, message: 'the replay' }).toBe(true);
    const item = (await ok(server, 'operation.get', { operation_id: applied.operation!.operation_id })).items[0]!;
    expect(replayed[0]).toMatchObject({ event_id: item.result_id, run_id: expect.stringMatching(/^run_/) });
    expect(replayed[0]!.run_id).not.toBe(published.run_id);
    // The original run's tree shows the replay, in its own run.
    const tree = await ok(server, 'run.tree', { run_id: published.run_id });
    expect(tree.replays).toEqual([{ event_id: item.result_id, run_id: replayed[0]!.run_id, replay_of_event_id: published.event_id }]);
  });
});
