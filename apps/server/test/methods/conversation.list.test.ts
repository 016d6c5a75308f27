/**
 * conversation.list, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('conversation.list', () => {
  it('lists conversations newest first with filters', async () => {
    const { items } = await walk(server, 'conversation.list', { limit: 3 });
    expect(items.length).toBeGreaterThan(1);
    for (let i = 1; i < items.length; i++) expect(items[i - 1]!.started_at >= items[i]!.started_at).toBe(true);
    const agentId = items[0]!.agent_id;
    const mine = (await ok(server, 'conversation.list', { filter: { agent_id: agentId }, limit: 500 })).conversations;
    expect(mine.map((c) => c.session_id)).toEqual(items.filter((c) => c.agent_id === agentId).map((c) => c.session_id));
    const withRun = items.find((c) => c.run_id);
    if (withRun) {
      const byRun = (await ok(server, 'conversation.list', { filter: { run_id: withRun.run_id } })).conversations;
      expect(byRun.every((c) => c.run_id === withRun.run_id)).toBe(true);
    }
    const status = items[0]!.status;
    expect((await ok(server, 'conversation.list', { filter: { status } })).conversations.every((c) => c.status === status)).toBe(true);
  });

  it('refuses a cursor it did not hand out with INVALID_CURSOR', async () => {
    await fails(server, 'conversation.list', { cursor: 'not-a-cursor' }, 'INVALID_CURSOR');
  });
});
