/**
 * agent.get, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('agent.get', () => {
  it('reads each listed agent as agent.list shows it, with references only', async () => {
    const { items } = await walk(server, 'agent.list', { limit: 1 });
    for (const listed of items) {
      const got = await ok(server, 'agent.get', { agent_id: listed.agent_id });
      const { current_session_ref, last_turn_ref, ...agent } = listed;
      expect(got.agent).toEqual(agent);
      expect(got.current_session_ref).toEqual(current_session_ref);
      expect(got.last_turn_ref).toEqual(last_turn_ref);
      expect(JSON.stringify(got)).not.toMatch(/turn_blocks|request_payload|response_payload/);
    }
  });

  it('answers NOT_FOUND naming the agent for an unknown id', async () => {
    const err = await errorOf(server, 'agent.get', { agent_id: 'nobody' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'agent', id: 'nobody' } });
  });
});
