/**
 * mailbox.get, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('mailbox.get', () => {
  it('reads one mailbox item with history and decision sheet', async () => {
    const decided = (await ok(server, 'mailbox.list', { filter: { status: 'approved' }, limit: 1 })).items[0];
    const got = await ok(server, 'mailbox.get', { mailbox_id: decided!.mailbox_id });
    expect(got.item).toEqual(decided);
    expect(got.payload).toEqual(decided!.payload);
    expect(got.history.map((h: any) => h.action)).toEqual(['created', 'approved']);
    expect(got.decision_sheet.downstream_preview.subscriber_source).toBe('event_catalog');
    const err = await errorOf(server, 'mailbox.get', { mailbox_id: 'mbx_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'mailbox_item', id: 'mbx_missing' } });
  });
});
