/**
 * run.start, the deprecated wrapper of event.publish, over real HTTP on the control test bundle. The
 * publish suite in event.publish.test.ts runs for both methods; this file holds what is run.start's own.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('run.start', () => {
  it('starts a run with its event, as event.publish does', async () => {
    const started = await ok(server, 'run.start', { event_name: 'tick', payload: { n: 1 } });
    expect(started.run_id).toMatch(/^run_/);
    const { events } = await ok(server, 'event.list', { filter: { run_id: started.run_id } });
    expect(events.map((e) => e.event_name)).toEqual(['tick']);
  });

  it('UNKNOWN_EVENT for a name outside the catalog', async () => {
    await fails(server, 'run.start', { event_name: 'no.such.event', payload: {} }, 'UNKNOWN_EVENT');
  });

  it('is marked deprecated in the OpenRPC document, event.publish is not', async () => {
    const doc = (await ok(server, 'rpc.discover')) as { methods: { name: string; deprecated?: boolean }[] };
    const byName = Object.fromEntries(doc.methods.map((m) => [m.name, m]));
    expect(byName['run.start']!.deprecated).toBe(true);
    expect(byName['event.publish']!.deprecated ?? false).toBe(false);
  });
});
