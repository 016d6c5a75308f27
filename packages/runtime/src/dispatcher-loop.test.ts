import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import { bootFixture, minimalBundle, writeBundle, type Fixture } from './testing/runtime-fixture';
import { Runtime } from './runtime';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('the claim loop', () => {
  it('the background loop dispatches a publish promptly and stop() waits for in-flight handlers', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    runtime.start();
    const started = Date.now();
    await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'o-2' } });
    await runtime.waitForIdle(5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await databaseOf(store).selectFrom('deliveries').select('status').executeTakeFirstOrThrow()).status).toBe('delivered');
    await runtime.stop();
    expect(runtime.dispatcher.inFlightCount).toBe(0);
  });

  it('pauseClaims stops claiming; cancelPending cancels unstarted deliveries of the given runs and settles them', async () => {
    let turns = 0;
    let turnTaken = () => {};
    fx = await bootFixture(minimalBundle(), {
      dispatcher: {
        onTurn: () => {
          turns++;
          turnTaken();
        },
      },
    });
    const { runtime, store } = fx;
    runtime.dispatcher.pauseClaims();
    runtime.start();
    const r1 = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'a' } });
    const r2 = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'b' } });
    // Two full turns of the claim loop after both publishes: each had its chance to claim, and did not.
    const target = turns + 2;
    await new Promise<void>((resolve) => {
      turnTaken = () => turns >= target && resolve();
    });
    expect((await databaseOf(store).selectFrom('deliveries').select('status').execute()).map((d) => d.status)).toEqual(['pending', 'pending']);
    expect(await runtime.cancelPending([r1.run_id])).toEqual({ cancelled_deliveries: 1, cancelled_runs: 1 });
    runtime.dispatcher.resumeClaims();
    await runtime.waitForIdle(5_000);
    const runs = await databaseOf(store).selectFrom('runs').select(['run_id', 'status']).execute();
    expect(Object.fromEntries(runs.map((r) => [r.run_id, r.status]))).toEqual({ [r1.run_id]: 'cancelled', [r2.run_id]: 'completed' });
  });

  it('completes what finishes together in one batch; a failing one is completed alone and the others still commit once', async () => {
    fx = await bootFixture(
      minimalBundle({
        events: {
          job: { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'relay' }, { type: 'node', id: 'note' }] },
          'job.relayed': { payload_schema: { type: 'object', properties: { n: { type: 'number' } } }, subscribers: [{ type: 'node', id: 'finish' }] },
          'job.noted': { payload_schema: { type: 'object' }, subscribers: [] },
          'job.finished': { payload_schema: { type: 'object' }, subscribers: [] },
        },
        nodes: {
          relay: { kind: 'transform', emit: 'job.relayed' },
          note: { kind: 'transform', emit: 'job.noted' },
          finish: { kind: 'transform', emit: 'job.finished' },
        },
        entity_types: {},
      }),
    );
    const { runtime, store } = fx;
    // Twenty jobs that all succeed: 60 outcomes, recorded in far fewer commit members than one each.
    for (let n = 0; n < 20; n++) await runtime.publish({ event_name: 'job', payload: { n } });
    const membersBefore = store.groupCommit.stats.members;
    runtime.start();
    await runtime.waitForIdle(10_000);
    expect(store.groupCommit.stats.members - membersBefore).toBeLessThan(30);
    await runtime.dispatcher.stop();
    await databaseOf(store).deleteFrom('deliveries').execute();
    await databaseOf(store).deleteFrom('events').execute();
    await databaseOf(store).deleteFrom('runs').execute();

    const runs: string[] = [];
    // Job 7's relay emits a payload job.relayed refuses: that handler fails for good, in the first batch.
    for (let n = 0; n < 20; n++) runs.push((await runtime.publish({ event_name: 'job', payload: { n: n === 7 ? 'seven' : n } })).run_id);
    runtime.dispatcher.start();
    await runtime.waitForIdle(10_000);

    const deliveries = await databaseOf(store).selectFrom('deliveries').select(['subscriber_id', 'status', 'attempts']).execute();
    expect(deliveries).toHaveLength(20 + 20 + 19);
    expect(deliveries.filter((d) => d.status !== 'delivered')).toEqual([{ subscriber_id: 'relay', status: 'failed', attempts: 1 }]);
    // Every emitted event once, however often its batch ran.
    const events = await databaseOf(store).selectFrom('events').select(['event_name', 'parent_event_id']).execute();
    const counts: Record<string, number> = {};
    for (const e of events) counts[e.event_name] = (counts[e.event_name] ?? 0) + 1;
    expect(counts).toEqual({ job: 20, 'job.relayed': 19, 'job.noted': 20, 'job.finished': 19 });
    const emitted = events.filter((e) => e.parent_event_id !== null);
    expect(new Set(emitted.map((e) => `${e.event_name}<${e.parent_event_id}`)).size).toBe(emitted.length);
    const dls = await databaseOf(store).selectFrom('dead_letters').select(['run_id', 'reason_code']).execute();
    expect(dls).toEqual([{ run_id: runs[7], reason_code: 'emit_payload_invalid' }]);
    const statuses = await databaseOf(store).selectFrom('runs').select(['run_id', 'status']).execute();
    expect(Object.fromEntries(statuses.map((r) => [r.run_id, r.status]))).toEqual(Object.fromEntries(runs.map((id, n) => [id, n === 7 ? 'failed' : 'completed'])));
  });

  it('a publish is written leased to its own running dispatcher while it has room, and runs without a claim; the rest wait for claims', async () => {
    fx = await bootFixture(minimalBundle(), { dispatcher: { concurrency: 1 } });
    const { runtime, store } = fx;
    const claimedIds: string[] = [];
    const claim = store.deliveries.claimDueUnlessLocked.bind(store.deliveries);
    store.deliveries.claimDueUnlessLocked = async (...args) => {
      const result = await claim(...args);
      claimedIds.push(...result.claimed.map((d) => d.delivery_id));
      return result;
    };
    // Stopped: nothing is leased at write.
    const early = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'early' } });
    expect(await databaseOf(store).selectFrom('deliveries').select(['status', 'attempts', 'lease_owner']).where('event_id', '=', early.event_id).executeTakeFirstOrThrow()).toEqual({
      status: 'pending',
      attempts: 0,
      lease_owner: null,
    });
    runtime.start();
    await runtime.waitForIdle(5_000);
    expect(claimedIds).toHaveLength(1);

    // Three at once with room for one: one is run as written, two are claimed.
    const three = await Promise.all(['a', 'b', 'c'].map((id) => runtime.publish({ event_name: 'order.placed', payload: { order_id: id } })));
    await runtime.waitForIdle(5_000);
    const rows = await databaseOf(store).selectFrom('deliveries').select(['delivery_id', 'status', 'attempts']).where('event_id', 'in', three.map((r) => r.event_id)).execute();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(Array(3).fill(['delivered', 1]));
    expect(rows.filter((r) => !claimedIds.includes(r.delivery_id))).toHaveLength(1);
    expect(claimedIds).toHaveLength(3);

    // Claims paused (a reset's quiescence): nothing is leased at write either.
    runtime.dispatcher.pauseClaims();
    const paused = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'paused' } });
    expect(await databaseOf(store).selectFrom('deliveries').select(['status', 'lease_owner']).where('event_id', '=', paused.event_id).executeTakeFirstOrThrow()).toEqual({ status: 'pending', lease_owner: null });
    runtime.dispatcher.resumeClaims();
    await runtime.waitForIdle(5_000);
    expect(claimedIds).toHaveLength(4);
  });

  it('wakeToClaim claims what another writer left pending at once, and again after a claim that was in flight', async () => {
    // Polls far apart: only the wake can make these claims happen within the test's time.
    fx = await bootFixture(minimalBundle(), { dispatcher: { pollMs: 60_000, idlePollMaxMs: 60_000 } });
    const { runtime, store } = fx;
    // Another server's publishes: a runtime on the same store with no dispatcher running writes them
    // pending, and does not wake this one.
    const other = await Runtime.boot({ autoStart: false, store, bundlePath: writeBundle(fx.dir, minimalBundle(), 'other.json') });
    const claim = store.deliveries.claimDueUnlessLocked.bind(store.deliveries);
    let hold: Promise<void> | undefined;
    const held: (() => void)[] = [];
    let claims = 0;
    store.deliveries.claimDueUnlessLocked = async (...args) => {
      claims++;
      const result = await claim(...args);
      // A claim that read the table before the other writer committed, and answers after.
      if (hold) await hold;
      return result;
    };
    const delivered = async (eventId: string) => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const row = await databaseOf(store).selectFrom('deliveries').select('status').where('event_id', '=', eventId).executeTakeFirst();
        if (row?.status === 'delivered') return;
        if (Date.now() > deadline) throw new Error(`delivery of ${eventId} not claimed (${row?.status})`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    try {
      runtime.start();
      await runtime.waitForIdle(5_000);

      const first = await other.publish({ event_name: 'order.placed', payload: { order_id: 'asleep' } });
      runtime.dispatcher.wakeToClaim();
      await delivered(first.event_id);

      hold = new Promise<void>((resolve) => held.push(resolve));
      const claimsBefore = claims;
      runtime.dispatcher.wake();
      while (claims === claimsBefore) await new Promise((resolve) => setImmediate(resolve));
      const second = await other.publish({ event_name: 'order.placed', payload: { order_id: 'in-flight' } });
      runtime.dispatcher.wakeToClaim();
      hold = undefined;
      held.splice(0).forEach((release) => release());
      await delivered(second.event_id);
    } finally {
      held.splice(0).forEach((release) => release());
      await other.stop();
    }
  });

  it('stop() waits for a publish that took handler slots before it and runs its deliveries, so no handler runs after it', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    runtime.start();
    await runtime.waitForIdle(5_000);
    const publishing = runtime.publish({ event_name: 'order.placed', payload: { order_id: 'at-stop' } });
    // One turn: the publish's batch has reserved its slot and is committing.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await runtime.dispatcher.stop();
    const rows = await databaseOf(store).selectFrom('deliveries').select(['status', 'attempts', 'lease_owner']).execute();
    expect(rows).toEqual([{ status: 'delivered', attempts: 1, lease_owner: null }]);
    expect((await publishing).status).toBe('running');
  });
});
