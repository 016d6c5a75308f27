/**
 * runtime.resume over real HTTP against the real runtime (the control test bundle): what a resume
 * releases, and that concurrent resumes release each queued publish exactly once. Pausing, and the
 * idempotent replays of both, are in runtime.pause.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import type { TestServer } from '../harness';
import { withControlServer } from './method-servers';
import { fails, ok, waitForQuiet } from '../control-helpers';

let server: TestServer;
withControlServer((s) => (server = s));

describe('runtime.resume', () => {
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

  it('resume while open is a no-op success; params are validated', async () => {
    expect(await ok(server, 'runtime.resume')).toEqual({ ok: true, released: 0 });
    await fails(server, 'runtime.resume', { force: true }, 'INVALID_PARAMS');
    await fails(server, 'runtime.pause', { reason: 'x'.repeat(2001) }, 'INVALID_PARAMS');
  });
});

async function tickCount(): Promise<number> {
  const row = await databaseOf(server.store).selectFrom('entities').select('accumulated').where('entity_id', '=', 'counter-main').executeTakeFirst();
  return row ? Number((JSON.parse(row.accumulated) as { ticks?: number }).ticks ?? 0) : 0;
}
