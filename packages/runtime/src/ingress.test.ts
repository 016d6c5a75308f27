import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import { bootFixture, count, minimalBundle, type Fixture } from './testing/runtime-fixture';

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
    await runtime.dispatcher.runUntilIdle();
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
});
