/** runtime.tool_servers: the bundle's tool servers, each with its tools and whether its faults are on. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('runtime.tool_servers', () => {
  it("lists every tool server of the control bundle with its tools and the faults it boots with", async () => {
    const { tool_servers } = await ok(server, 'runtime.tool_servers');
    expect(tool_servers.map((t) => t.name).sort()).toEqual(expect.arrayContaining(['mcp.flaky', 'mcp.slow']));
    expect(tool_servers.find((t) => t.name === 'mcp.flaky')).toMatchObject({ tools: ['charge'], faults: 'on' });
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'runtime.tool_servers', { name: 'mcp.flaky' }, 'INVALID_PARAMS');
  });
});
