/**
 * runtime.pause over real HTTP against the real runtime (the control test bundle): publishes queue
 * durably while paused and are released on resume; pause and resume replay idempotently.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { keyMaker, withControlServer } from './method-servers';
import { fails, ok, waitForQuiet } from '../control-helpers';

let server: TestServer;
withControlServer((s) => (server = s));
const newKey = keyMaker('pr');

describe('runtime.pause', () => {
  it('queues publishes durably while paused and releases each exactly once on resume', async () => {
    await waitForQuiet(server);
    expect(await ok(server, 'runtime.pause', { reason: 'maintenance' })).toEqual({ ok: true, ingress: 'paused' });
    const status = await ok(server, 'runtime.status');
    expect(status.ingress).toBe('paused');
    const queued = [];
    for (let i = 0; i < 5; i++) queued.push(await ok(server, 'event.publish', { event_name: 'tick', payload: { n: i } }));
    expect(queued.every((q) => q.status === 'queued')).toBe(true);
    expect((await ok(server, 'runtime.status')).queue_depth).toBe(5);
    // Queued publishes are not events yet: nothing is dispatched while paused.
    const { events } = await ok(server, 'event.list', { filter: { run_id: queued[0]!.run_id } });
    expect(events).toEqual([]);

    const resumed = await ok(server, 'runtime.resume');
    expect(resumed).toEqual({ ok: true, released: 5 });
    const after = await ok(server, 'runtime.status');
    expect(after).toMatchObject({ ingress: 'open', queue_depth: 0 });
    for (const q of queued) {
      const { events: released } = await ok(server, 'event.list', { filter: { run_id: q.run_id } });
      expect(released.map((e: any) => e.event_id)).toEqual([q.event_id]);
    }
    await waitForQuiet(server);
  });

  it('pause and resume are idempotent: replays return the stored result and do not act again', async () => {
    const pauseKey = newKey();
    const paused = await ok(server, 'runtime.pause', { idempotency_key: pauseKey, reason: 'r1' });
    expect(await ok(server, 'runtime.pause', { idempotency_key: pauseKey, reason: 'r1' })).toEqual(paused);
    await fails(server, 'runtime.pause', { idempotency_key: pauseKey, reason: 'r2' }, 'IDEMPOTENCY_CONFLICT');

    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 100 } });
    const resumeKey = newKey();
    const resumed = await ok(server, 'runtime.resume', { idempotency_key: resumeKey });
    expect(resumed).toEqual({ ok: true, released: 1 });
    await ok(server, 'runtime.pause');
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 101 } });
    // A replay returns the first call's result and does not resume again: the new item stays queued.
    expect(await ok(server, 'runtime.resume', { idempotency_key: resumeKey })).toEqual(resumed);
    expect(await ok(server, 'runtime.status')).toMatchObject({ ingress: 'paused', queue_depth: 1 });
    expect(await ok(server, 'runtime.resume')).toEqual({ ok: true, released: 1 });
  });
});
