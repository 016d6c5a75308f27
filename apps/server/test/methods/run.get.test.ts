/**
 * run.get, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(20, (s) => (server = s));

describe('run.get', () => {
  it('reads a run with its event and dead-letter counts', async () => {
    const allEvents = (await walk(server, 'event.list', { limit: 500 })).items;
    const dead = allEvents.find((e) => e.dead_letters.length > 0)!;
    const { run } = await ok(server, 'run.get', { run_id: dead.run_id! });
    const runEvents = allEvents.filter((e) => e.run_id === dead.run_id);
    expect(run.event_count).toBe(runEvents.length);
    expect(run.dead_letter_count).toBe(runEvents.reduce((n, e) => n + e.dead_letters.length, 0));
    expect(run.dead_letter_count).toBeGreaterThan(0);
    expect(runEvents.map((e) => e.event_id)).toContain(run.root_event_id);
    const err = await errorOf(server, 'run.get', { run_id: 'run_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'run', id: 'run_missing' } });
  });
});
