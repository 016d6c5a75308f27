/** runtime.queue: the publishes queued while ingress is paused, oldest first. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

describe('runtime.queue', () => {
  let server: TestServer;
  withControlServer((s) => {
    server = s as TestServer;
  });

  it('lists publishes queued while paused, oldest first, and nothing once resumed', async () => {
    await ok(server, 'runtime.pause', { reason: 'queue test' });
    const published = [];
    for (let n = 0; n < 3; n++) published.push(await ok(server, 'event.publish', { event_name: 'tick', payload: { n } }));
    const queue = await ok(server, 'runtime.queue', {});
    expect(queue.queue_depth).toBe(3);
    expect(queue.queued.map((q) => q.event_id)).toEqual(published.map((p) => p.event_id));
    expect(queue.queued.map((q) => q.run_id)).toEqual(published.map((p) => p.run_id));
    expect(queue.queued.every((q) => q.event_name === 'tick')).toBe(true);
    expect((await ok(server, 'runtime.queue', { limit: 1 })).queued).toHaveLength(1);
    await ok(server, 'runtime.resume');
    expect(await ok(server, 'runtime.queue', {})).toEqual({ queued: [], queue_depth: 0 });
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'runtime.queue', { limit: 0 }, 'INVALID_PARAMS');
  });
});
