/**
 * mailbox.list, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(6, (s) => (server = s));

describe('mailbox.list', () => {
  it('lists mailbox items pending first, then newest, with filters and a cursor walk', async () => {
    const { items } = await walk(server, 'mailbox.list', { limit: 2 });
    expect(items.length).toBeGreaterThan(3);
    const firstDecided = items.findIndex((i) => i.status !== 'pending');
    expect(firstDecided).toBeGreaterThan(0);
    expect(items.slice(firstDecided).every((i) => i.status !== 'pending')).toBe(true);
    for (let i = 1; i < firstDecided; i++) expect(items[i - 1]!.created_at >= items[i]!.created_at).toBe(true);
    const pending = await walk(server, 'mailbox.list', { filter: { status: 'pending' }, limit: 1 });
    expect(pending.items.map((i) => i.mailbox_id)).toEqual(items.slice(0, firstDecided).map((i) => i.mailbox_id));
    const type = items[0]!.type;
    const byType = (await ok(server, 'mailbox.list', { filter: { type, source_flow: items[0]!.source_flow, priority: items[0]!.priority }, limit: 500 })).items;
    expect(byType.map((i: any) => i.mailbox_id)).toEqual(
      items.filter((i) => i.type === type && i.source_flow === items[0]!.source_flow && i.priority === items[0]!.priority).map((i) => i.mailbox_id),
    );
    expect((await errorOf(server, 'mailbox.list', { filter: { status: 'archived' } })).code).toBe('INVALID_PARAMS');
    for (const item of items) expect(Object.values(item)).not.toContain(null);
  });

  it('filters by payload conditions, with the other filters and in pages', async () => {
    const { items } = await walk(server, 'mailbox.list', { limit: 500 });
    const ticketOf = (i: (typeof items)[number]) => (i.payload as Record<string, unknown>).ticket_id;
    const ticket = items.map(ticketOf).find((t) => typeof t === 'string') as string;
    const filter = { payload: [{ path: 'ticket_id', op: 'eq' as const, value: ticket }] };
    const got = await walk(server, 'mailbox.list', { filter, limit: 1 });
    expect(got.items.map((i) => i.mailbox_id)).toEqual(items.filter((i) => ticketOf(i) === ticket).map((i) => i.mailbox_id));
    const pendingWithTicket = await walk(server, 'mailbox.list', { filter: { status: 'pending', payload: [{ path: 'ticket_id', op: 'exists' }] }, limit: 2 });
    expect(pendingWithTicket.items.map((i) => i.mailbox_id)).toEqual(items.filter((i) => i.status === 'pending' && ticketOf(i) != null).map((i) => i.mailbox_id));
    expect((await ok(server, 'mailbox.list', { filter: { payload: [{ path: 'ticket_id', op: 'eq', value: 12345 }] } })).items).toEqual([]);
    const bad = await errorOf(server, 'mailbox.list', { filter: { payload: [{ path: 'ticket-id', op: 'exists' }] } });
    expect(bad.code).toBe('INVALID_PARAMS');
  });
});
