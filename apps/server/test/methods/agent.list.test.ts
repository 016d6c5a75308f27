/**
 * agent.list, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('agent.list', () => {
  it("lists every agent of the bundle, one page at a time, with references only", async () => {
    const { items, pages } = await walk(server, 'agent.list', { limit: 1 });
    expect(items.map((a) => a.agent_id)).toEqual(server.runtime.bundle.definition.agents.map((a) => a.agent_id).sort());
    expect(pages).toBeGreaterThanOrEqual(items.length);
    expect(JSON.stringify(items)).not.toMatch(/turn_blocks|request_payload|response_payload/);
  });

  it('refuses a cursor it did not hand out with INVALID_CURSOR', async () => {
    await fails(server, 'agent.list', { cursor: 'not-a-cursor' }, 'INVALID_CURSOR');
  });
});
