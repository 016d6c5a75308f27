/**
 * conversation.get, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('conversation.get', () => {
  it('reads a conversation as listed, with its turns in order', async () => {
    const [listed] = (await ok(server, 'conversation.list', { limit: 1 })).conversations;
    const full = await ok(server, 'conversation.get', { session_id: listed!.session_id });
    expect(full.conversation).toEqual(listed);
    expect(full.turns).toHaveLength(listed!.turn_count);
    expect(full.turns.map((t) => t.turn_index)).toEqual([...full.turns.map((t) => t.turn_index)].sort((a, b) => a - b));
  });

  it('answers NOT_FOUND naming the conversation for an unknown session', async () => {
    const err = await errorOf(server, 'conversation.get', { session_id: 'ses_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'conversation', id: 'ses_missing' } });
  });
});
