import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf, failCommitsWritingEvent } from '@switchboard/store/testing';
import { bootFixture, count, minimalBundle, type Fixture } from './testing/runtime-fixture';
import { runUntilIdle } from './testing/run-until-idle';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('ingress pause and resume', () => {
  it('queues publishes durably while paused and reports them in status', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    expect(await runtime.pause('maintenance')).toEqual({ ok: true, ingress: 'paused' });
    const res = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'q1' } });
    expect(res.status).toBe('queued');
    expect(await count(store, 'events')).toBe(0);
    expect(await databaseOf(store).selectFrom('runs').select('status').executeTakeFirstOrThrow()).toEqual({ status: 'queued' });
    const status = await runtime.status();
    expect(status).toMatchObject({ ingress: 'paused', queue_depth: 1, active_runs: 0, pending_deliveries: 0, reset_in_progress: false, name: 'test-bundle' });
    expect(await runtime.resume()).toEqual({ ok: true, released: 1 });
    const ev = await databaseOf(store).selectFrom('events').selectAll().executeTakeFirstOrThrow();
    expect(ev).toMatchObject({ event_id: res.event_id, run_id: res.run_id });
    expect(await runtime.status()).toMatchObject({ ingress: 'open', queue_depth: 0, active_runs: 1, pending_deliveries: 1 });
    await runUntilIdle(runtime);
    expect(await databaseOf(store).selectFrom('runs').select('status').executeTakeFirstOrThrow()).toEqual({ status: 'completed' });
  });

  it('two concurrent resumes release each of 1,000 queued publishes exactly once', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    await runtime.pause();
    const acked: string[] = [];
    for (let i = 0; i < 1000; i++) acked.push((await runtime.publish({ event_name: 'order.placed', payload: { order_id: `o${i}` } })).event_id);
    const [a, b] = await Promise.all([runtime.resume(), runtime.resume()]);
    expect(a.released + b.released).toBe(1000);
    const events = await databaseOf(store).selectFrom('events').select('event_id').execute();
    expect(events).toHaveLength(1000);
    expect(new Set(events.map((e) => e.event_id))).toEqual(new Set(acked));
    expect(await count(store, 'deliveries')).toBe(1000);
    const queue = await databaseOf(store).selectFrom('ingress_queue').select('status').where('status', '=', 'queued').execute();
    expect(queue).toHaveLength(0);
    expect(await databaseOf(store).selectFrom('runs').select('run_id').where('status', '=', 'queued').execute()).toHaveLength(0);
    // A third resume has nothing left to release.
    expect((await runtime.resume()).released).toBe(0);
  }, 60_000);

  it('persists the ingress state: a new runtime on the same store is still paused', async () => {
    fx = await bootFixture(minimalBundle());
    await fx.runtime.pause();
    await fx.runtime.publish({ event_name: 'order.placed', payload: { order_id: 'x' } });
    const dir = fx.dir;
    await fx.close();
    fx = await bootFixture(minimalBundle(), { dir });
    expect(await fx.runtime.ingressState()).toBe('paused');
    expect((await fx.runtime.status()).queue_depth).toBe(1);
  });

  it('refuses mutations while a reset holds the runtime', async () => {
    fx = await bootFixture(minimalBundle());
    await fx.runtime.resetLock.acquire('reset_test_holder');
    await expect(fx.runtime.publish({ event_name: 'order.placed', payload: { order_id: 'x' } })).rejects.toMatchObject({ code: 'RESET_IN_PROGRESS' });
    await expect(fx.runtime.resume()).rejects.toMatchObject({ code: 'RESET_IN_PROGRESS' });
    await fx.runtime.resetLock.release();
    expect((await fx.runtime.publish({ event_name: 'order.placed', payload: { order_id: 'x' } })).status).toBe('running');
  });

  it('writes publishes that arrive together in one batch; one refused in its commit hook is refused alone', async () => {
    fx = await bootFixture(
      minimalBundle({
        events: {
          ...(minimalBundle().events as object),
          // No subscriber: its run settles as it is written.
          'order.noted': { payload_schema: { type: 'object' }, subscribers: [] },
        },
      }),
    );
    const { runtime, store } = fx;
    const membersBefore = store.groupCommit.stats.members;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runtime
          .publish(i % 2 ? { event_name: 'order.placed', payload: { order_id: `o${i}` } } : { event_name: 'order.noted' }, async () => {
            if (i === 13) throw new Error('the answer could not be stored');
          })
          .then(
            (r) => ({ ok: r }),
            (e: Error) => ({ error: e.message }),
          ),
      ),
    );
    expect(answers[13]).toEqual({ error: 'the answer could not be stored' });
    const published = answers.flatMap((a) => ('ok' in a ? [a.ok] : []));
    expect(published).toHaveLength(19);
    // Nothing of the refused one is stored; every other one once, with its deliveries.
    const runs = await databaseOf(store).selectFrom('runs').select(['run_id', 'status', 'root_event_id']).execute();
    expect(new Set(runs.map((r) => r.run_id))).toEqual(new Set(published.map((p) => p.run_id)));
    const events = await databaseOf(store).selectFrom('events').select(['event_id', 'run_id', 'seq']).execute();
    expect(new Set(events.map((e) => e.event_id))).toEqual(new Set(published.map((p) => p.event_id)));
    expect(new Set(events.map((e) => Number(e.seq))).size).toBe(19);
    expect(await count(store, 'deliveries')).toBe(9);
    const noted = new Set(answers.flatMap((a, i) => ('ok' in a && i % 2 === 0 ? [a.ok.run_id] : [])));
    expect(runs.filter((r) => noted.has(r.run_id)).map((r) => r.status)).toEqual(Array(10).fill('completed'));
    expect(runs.filter((r) => !noted.has(r.run_id)).map((r) => r.status)).toEqual(Array(9).fill('running'));
    // The batch was tried first (one member), then each of the 20 alone.
    expect(store.groupCommit.stats.members - membersBefore).toBe(21);

    // Without a refusal, the next 20 are one member.
    const before = store.groupCommit.stats.members;
    await Promise.all(Array.from({ length: 20 }, (_, i) => runtime.publish({ event_name: 'order.placed', payload: { order_id: `p${i}` } })));
    expect(store.groupCommit.stats.members - before).toBe(1);
    expect(await count(store, 'deliveries')).toBe(29);
  });

  it('gives every publish of a batch the failure of its commit, and does not write the batch again item by item', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    // The batch's writes all run, then its COMMIT fails: to the caller, a commit that may have landed.
    await failCommitsWritingEvent(store, 'fail-at-commit');
    let writes = 0;
    const appendEvents = store.runWrites.appendEvents.bind(store.runWrites);
    store.runWrites.appendEvents = (...args) => {
      writes += 1;
      return appendEvents(...args);
    };
    const answers = await Promise.all(
      ['a', 'b', 'fail-at-commit', 'c', 'd'].map((order_id) =>
        runtime.publish({ event_name: 'order.placed', payload: { order_id } }).then(
          () => 'published',
          (e: Error) => (e.message.includes('constraint') ? 'commit failed' : e.message),
        ),
      ),
    );
    expect(answers).toEqual(Array(5).fill('commit failed'));
    // The batch's events were written once. Written again one by one, the four others would be
    // stored twice had that commit landed.
    expect(writes).toBe(1);
    expect(await count(store, 'events')).toBe(0);
    expect(await count(store, 'runs')).toBe(0);
  });
});
