/** runtime.set_tool_server_faults: turns a tool server's injected faults off and on, durably and idempotently. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { keyMaker, withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});
const newKey = keyMaker('faults');

const faultsOf = async (name: string) => (await ok(server, 'runtime.tool_servers')).tool_servers.find((t) => t.name === name)?.faults;

describe('runtime.set_tool_server_faults', () => {
  it('turns faults off (a charge then delivers) and on again (it dead-letters)', async () => {
    const off = await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'off' });
    expect(off.tool_server).toMatchObject({ name: 'mcp.flaky', faults: 'off' });
    expect(await faultsOf('mcp.flaky')).toBe('off');
    const delivered = await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { faults: 'off' } });
    await waitForQuiet(server);
    const [withFaultsOff] = (await ok(server, 'event.list', { filter: { event_id: delivered.event_id! } })).events;
    expect(withFaultsOff!.deliveries.find((d) => d.subscriber_id === 'charge-card')?.status).toBe('delivered');

    await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'on' });
    expect(await faultsOf('mcp.flaky')).toBe('on');
    const failed = await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { faults: 'on' } });
    await waitForQuiet(server);
    const [withFaultsOn] = (await ok(server, 'event.list', { filter: { event_id: failed.event_id! } })).events;
    expect(withFaultsOn!.dead_letters.map((l) => l.subscriber_id)).toEqual(['charge-card']);
  });

  it('replays by idempotency key and conflicts on a different body', async () => {
    const key = newKey();
    const first = await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'on', idempotency_key: key });
    expect(await ok(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'on', idempotency_key: key })).toEqual(first);
    await fails(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'off', idempotency_key: key }, 'IDEMPOTENCY_CONFLICT');
    expect(await faultsOf('mcp.flaky')).toBe('on');
  });

  it('NOT_FOUND for a tool server the bundle does not have; INVALID_PARAMS for a faults value other than on/off', async () => {
    const missing = await fails(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.nowhere', faults: 'off' }, 'NOT_FOUND');
    expect(missing.data.details).toEqual({ tool_server: 'mcp.nowhere' });
    await fails(server, 'runtime.set_tool_server_faults', { tool_server: 'mcp.flaky', faults: 'sometimes' }, 'INVALID_PARAMS');
  });
});
