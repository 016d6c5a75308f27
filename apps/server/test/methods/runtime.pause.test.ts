/**
 * runtime.pause and runtime.resume over real HTTP against the real runtime (the control test bundle): every error code it
 * can return, idempotent replays and the concurrency guarantees.
 */
import { describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import type { TestServer } from '../harness';
import { keyMaker, withControlServer } from './method-servers';
import { fails, ok, waitForQuiet } from '../control-helpers';

let server: TestServer;
withControlServer((s) => (server = s));
const newKey = keyMaker('pr');

describe('runtime.pause and runtime.resume', () => {
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

  it('resume while open is a no-op success; params are validated', async () => {
    expect(await ok(server, 'runtime.resume')).toEqual({ ok: true, released: 0 });
    await fails(server, 'runtime.resume', { force: true }, 'INVALID_PARAMS');
    await fails(server, 'runtime.pause', { reason: 'x'.repeat(2001) }, 'INVALID_PARAMS');
  });

  it('two concurrent resumes with 1,000 queued publishes dispatch each exactly once', async () => {
    await waitForQuiet(server);
    const counterBefore = await tickCount();
    await ok(server, 'runtime.pause');
    // 1,000 publishes in batches of 100 (one HTTP request per batch).
    const runIds: string[] = [];
    for (let b = 0; b < 10; b++) {
      const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: `${b}-${i}`, method: 'event.publish', params: { event_name: 'tick', payload: { n: b * 100 + i } } }));
      const res = await server.post('/v1/rpc', batch);
      const answers = (await res.json()) as any[];
      for (const a of answers) {
        expect(a.result.status).toBe('queued');
        runIds.push(a.result.run_id);
      }
    }
    expect((await ok(server, 'runtime.status')).queue_depth).toBe(1000);

    const [a, b] = await Promise.all([ok(server, 'runtime.resume'), ok(server, 'runtime.resume')]);
    expect(a.ok && b.ok).toBe(true);
    expect((a.released ?? 0) + (b.released ?? 0)).toBe(1000);
    await waitForQuiet(server, 60_000);

    // Exactly once: one event per queued run, one delivered delivery each, and the counter moved by exactly 1,000.
    const rows = await databaseOf(server.store)
      .selectFrom('events')
      .select(['run_id', 'event_id'])
      .where('run_id', 'in', runIds)
      .execute();
    expect(rows.length).toBe(1000);
    expect(new Set(rows.map((r) => r.run_id)).size).toBe(1000);
    const deliveries = await databaseOf(server.store).selectFrom('deliveries').select(['status']).where('run_id', 'in', runIds).execute();
    expect(deliveries.length).toBe(1000);
    expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
    expect(await tickCount()).toBe(counterBefore + 1000);
    const released = await databaseOf(server.store).selectFrom('ingress_queue').select(['status']).where('run_id', 'in', runIds).execute();
    expect(released.every((r) => r.status === 'released')).toBe(true);
  }, 120_000);
});

async function tickCount(): Promise<number> {
  const row = await databaseOf(server.store).selectFrom('entities').select('accumulated').where('entity_id', '=', 'counter-main').executeTakeFirst();
  return row ? Number((JSON.parse(row.accumulated) as { ticks?: number }).ticks ?? 0) : 0;
}
