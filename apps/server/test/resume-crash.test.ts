/**
 * Crash test: the real server process is SIGKILLed in the middle of a resume of 1,000 queued
 * publishes, then started again on the same data folder. Every queued publish must still be
 * dispatched exactly once: one event per queued run, one delivered delivery each, and the counter
 * entity the bundle's node increments per delivery ends at exactly 1,000.
 */
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect, it } from 'vitest';

import { crashServers } from './crash-servers';

const { dataDir, start: startServerProcess, call, rpc } = crashServers('crash', 'sbk_crash_test_token_0000000001');

it('a server killed during a resume of 1,000 queued items still dispatches each exactly once after restart', async () => {
  const first = await startServerProcess();
  await rpc(first.url, 'runtime.pause');
  for (let b = 0; b < 10; b++) {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'event.publish', params: { event_name: 'tick', payload: { n: b * 100 + i } } }));
    const answers = (await call(first.url, batch)) as any[];
    expect(answers.every((a) => a.result?.status === 'queued')).toBe(true);
  }
  expect((await rpc(first.url, 'runtime.status')).queue_depth).toBe(1000);

  // Watch the store from outside (WAL allows a concurrent reader) and kill mid-resume.
  const reader = new BetterSqlite3(path.join(dataDir, 'switchboard.db'), { readonly: true, fileMustExist: true });
  const releasedCount = () => (reader.prepare(`select count(*) as n from ingress_queue where status = 'released'`).get() as { n: number }).n;
  const resume = call(first.url, { jsonrpc: '2.0', id: 'resume', method: 'runtime.resume', params: {} }).catch((err: Error) => ({ transportError: err.message }));
  await expect.poll(() => releasedCount() >= 50, { timeout: 30_000, interval: 20, message: 'the resume to be under way' }).toBe(true);
  first.child.kill('SIGKILL');
  await first.exited;
  const releasedAtKill = releasedCount();
  expect(releasedAtKill).toBeGreaterThanOrEqual(50);
  expect(releasedAtKill).toBeLessThan(1000);
  expect(await resume).toHaveProperty('transportError');

  const second = await startServerProcess();
  await expect.poll(async () => {
      const s = await rpc(second.url, 'runtime.status');
      return s.queue_depth === 0 && s.pending_deliveries === 0;
    }, { timeout: 60_000, interval: 20, message: 'the restarted runtime to finish the resume and dispatch' }).toBe(true);

  const events = reader.prepare(`select run_id, count(*) as n from events where event_name = 'tick' group by run_id`).all() as { run_id: string; n: number }[];
  expect(events.length).toBe(1000);
  expect(events.every((e) => e.n === 1)).toBe(true);
  const queue = reader.prepare(`select status, count(*) as n from ingress_queue group by status`).all();
  expect(queue).toEqual([{ status: 'released', n: 1000 }]);
  const deliveries = reader.prepare(`select status, count(*) as n from deliveries group by status`).all();
  expect(deliveries).toEqual([{ status: 'delivered', n: 1000 }]);
  const counter = reader.prepare(`select accumulated from entities where entity_id = 'counter-main'`).get() as { accumulated: string };
  expect(JSON.parse(counter.accumulated).ticks).toBe(1000);
  reader.close();
  second.child.kill('SIGTERM');
  await second.exited;
}, 180_000);
