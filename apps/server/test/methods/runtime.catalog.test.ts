/** runtime.catalog: the events of the running bundle, each with its subscribers, for the console's pickers. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withServer } from './method-servers';

describe('runtime.catalog', () => {
  let server: TestServer;
  withServer((s) => {
    server = s;
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'runtime.catalog', { event_name: 'refund.approved' }, 'INVALID_PARAMS');
  });

  it('runtime.catalog names every event of the bundle, sorted, with its subscribers', async () => {
    const { events } = await ok(server, 'runtime.catalog', {});
    const bundle = server.runtime.bundle.definition.events;
    expect(events.map((e) => e.name)).toEqual(Object.keys(bundle).sort((a, b) => a.localeCompare(b)));
    for (const e of events) expect(e.subscribers.map((s) => s.id)).toEqual(bundle[e.name]!.subscribers.map((s) => s.id));
    expect(events.find((e) => e.name === 'refund.approved')?.description).toBeTruthy();
  });

  it('names the payload fields the bundle declares indexed, for the filter bar to suggest', async () => {
    const { events } = await ok(server, 'runtime.catalog', {});
    expect(events.find((e) => e.name === 'ticket.created')?.indexed_payload_fields).toEqual(['ticket_id', 'order_id']);
    expect(events.find((e) => e.name === 'refund.paid')?.indexed_payload_fields).toBeUndefined();
  });
});
