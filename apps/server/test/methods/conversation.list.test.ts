/**
 * conversation.list and conversation.get, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('conversation.list and conversation.get', () => {
  it('lists conversations newest first with filters, and reads one with its turns in order', async () => {
    const { items } = await walk(server, 'conversation.list', { limit: 3 });
    expect(items.length).toBeGreaterThan(1);
    for (let i = 1; i < items.length; i++) expect(items[i - 1]!.started_at >= items[i]!.started_at).toBe(true);
    const agentId = items[0]!.agent_id;
    const mine = (await ok(server, 'conversation.list', { filter: { agent_id: agentId }, limit: 500 })).conversations;
    expect(mine.map((c: any) => c.session_id)).toEqual(items.filter((c) => c.agent_id === agentId).map((c) => c.session_id));
    const withRun = items.find((c) => c.run_id);
    if (withRun) {
      const byRun = (await ok(server, 'conversation.list', { filter: { run_id: withRun.run_id } })).conversations;
      expect(byRun.every((c: any) => c.run_id === withRun.run_id)).toBe(true);
    }
    const status = items[0]!.status;
    expect((await ok(server, 'conversation.list', { filter: { status } })).conversations.every((c: any) => c.status === status)).toBe(true);
    const full = await ok(server, 'conversation.get', { session_id: items[0]!.session_id });
    expect(full.conversation).toEqual(items[0]);
    expect(full.turns).toHaveLength(items[0]!.turn_count);
    expect(full.turns.map((t: any) => t.turn_index)).toEqual([...full.turns.map((t: any) => t.turn_index)].sort((a: number, b: number) => a - b));
    const err = await errorOf(server, 'conversation.get', { session_id: 'ses_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'conversation', id: 'ses_missing' } });
  });
});
