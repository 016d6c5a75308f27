/**
 * event.list: every filter, the time range, limits and keyset cursors, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import type { TestServer } from '../harness';
import { errorOf, ok, walk } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(20, (s) => (server = s));

type Ev = {
  payload: Record<string, unknown>;
  event_id: string;
  event_name: string;
  created_at: string;
  entity_id?: string;
  run_id?: string;
  deliveries: { subscriber_id: string; reason_code?: string }[];
  dead_letters: { reason_code?: string }[];
};

let allEvents: Ev[];
beforeAll(async () => {
  allEvents = (await walk(server, 'event.list', { limit: 500 })).items;
});

function publishTicket(i: number) {
  return server.runtime.publish({
    event_name: 'ticket.created',
    payload: { ticket_id: `X-${i}`, order_id: `ORD-X${i}`, customer: 'Test Customer', subject: 'Where is my parcel?', body: 'Tracking is stuck.', channel: 'chat', priority: 'normal' },
    entity_id: `ticket-X-${i}`,
  });
}

function matches(e: Ev, f: Record<string, any>): boolean {
  return (
    (f.entity_id === undefined || e.entity_id === f.entity_id) &&
    (f.event_name === undefined || e.event_name === f.event_name) &&
    (f.event_name_prefix === undefined || e.event_name.startsWith(f.event_name_prefix)) &&
    (f.run_id === undefined || e.run_id === f.run_id) &&
    (f.event_id === undefined || e.event_id === f.event_id) &&
    (f.has_dead_letter === undefined || e.dead_letters.length > 0 === f.has_dead_letter) &&
    (f.subscriber_id === undefined || e.deliveries.some((d) => d.subscriber_id === f.subscriber_id)) &&
    (f.reason_code === undefined ||
      e.deliveries.some((d) => d.reason_code === f.reason_code) ||
      e.dead_letters.some((l) => l.reason_code === f.reason_code))
  );
}

describe('event.list', () => {
  it('lists every stored event newest first with deliveries and dead letters nested', async () => {
    const count = await databaseOf(server.store).selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(allEvents).toHaveLength(Number(count.n));
    expect(allEvents.length).toBeGreaterThan(30);
    for (let i = 1; i < allEvents.length; i++) expect(allEvents[i - 1]!.created_at >= allEvents[i]!.created_at).toBe(true);
    expect(allEvents.some((e) => e.deliveries.length > 0)).toBe(true);
    expect(allEvents.some((e) => e.dead_letters.length > 0)).toBe(true);
  });

  it('applies each filter alone, walking every page', async () => {
    const dead = allEvents.find((e) => e.dead_letters.length > 0)!;
    const reason = [...allEvents.flatMap((e) => e.deliveries.map((d) => d.reason_code)), ...allEvents.flatMap((e) => e.dead_letters.map((l) => l.reason_code))].find(Boolean)!;
    const filters: Record<string, unknown>[] = [
      { entity_id: dead.entity_id },
      { event_name: 'ticket.created' },
      { event_name_prefix: 'refund' },
      { event_name_prefix: 'ticket.cr' },
      { has_dead_letter: true },
      { has_dead_letter: false },
      { reason_code: reason },
      { run_id: dead.run_id },
      { subscriber_id: 'triage-agent' },
      { event_id: dead.event_id },
    ];
    for (const filter of filters) {
      const want = allEvents.filter((e) => matches(e, filter)).map((e) => e.event_id);
      expect(want.length, JSON.stringify(filter)).toBeGreaterThan(0);
      const got = await walk(server, 'event.list', { filter, limit: 3 });
      expect(got.items.map((e) => e.event_id), JSON.stringify(filter)).toEqual(want);
    }
  });

  it('combines filters', async () => {
    const dead = allEvents.find((e) => e.dead_letters.length > 0)!;
    const combos: Record<string, unknown>[] = [
      { event_name: 'ticket.created', subscriber_id: 'triage-agent' },
      { event_name: 'ticket.created', has_dead_letter: true },
      { entity_id: dead.entity_id, run_id: dead.run_id, event_name: dead.event_name },
      { subscriber_id: 'pay-refund', has_dead_letter: false },
      { reason_code: dead.dead_letters[0]!.reason_code, entity_id: dead.entity_id },
      { run_id: dead.run_id, subscriber_id: 'open-ticket', event_name: 'ticket.created' },
      { entity_id: dead.entity_id, event_name: 'refund.paid', has_dead_letter: true, subscriber_id: 'nobody' },
    ];
    for (const filter of combos) {
      const want = allEvents.filter((e) => matches(e, filter)).map((e) => e.event_id);
      const got = await walk(server, 'event.list', { filter, limit: 2 });
      expect(got.items.map((e) => e.event_id), JSON.stringify(filter)).toEqual(want);
    }
  });

  it('treats since as inclusive and until as exclusive', async () => {
    const pivot = allEvents[Math.floor(allEvents.length / 2)]!;
    const t = pivot.created_at;
    const since = (await walk(server, 'event.list', { since: t, limit: 7 })).items.map((e) => e.event_id);
    expect(since).toEqual(allEvents.filter((e) => e.created_at >= t).map((e) => e.event_id));
    expect(since).toContain(pivot.event_id);
    const until = (await walk(server, 'event.list', { until: t, limit: 7 })).items.map((e) => e.event_id);
    expect(until).toEqual(allEvents.filter((e) => e.created_at < t).map((e) => e.event_id));
    expect(until).not.toContain(pivot.event_id);
    const both = await ok(server, 'event.list', { since: t, until: t });
    expect(both.events).toEqual([]);
    const ranged = await walk(server, 'event.list', { since: allEvents.at(-5)!.created_at, until: t, filter: { event_name: 'ticket.created' }, limit: 2 });
    expect(ranged.items.map((e) => e.event_id)).toEqual(
      allEvents.filter((e) => e.created_at >= allEvents.at(-5)!.created_at && e.created_at < t && e.event_name === 'ticket.created').map((e) => e.event_id),
    );
  });

  it('validates limit: 1 and 500 accepted, 0 and 501 refused', async () => {
    const one = await ok(server, 'event.list', { limit: 1 });
    expect(one.events).toHaveLength(1);
    expect(one.next_cursor).toEqual(expect.any(String));
    const max = await ok(server, 'event.list', { limit: 500 });
    expect(max.events).toHaveLength(Math.min(500, allEvents.length));
    for (const limit of [0, 501, 2.5, -1]) {
      const err = await errorOf(server, 'event.list', { limit });
      expect(err.code).toBe('INVALID_PARAMS');
      expect(err.details.issues?.[0]?.path).toBe('limit');
    }
  });

  it('defaults limit to 50 and omits next_cursor on the last page', async () => {
    const first = await ok(server, 'event.list', {});
    // The demo seed holds more than one default page, so the first page must say there is more.
    expect(allEvents.length).toBeGreaterThan(50);
    expect(first.events).toHaveLength(50);
    expect(first.next_cursor).toBeDefined();
    const last = await ok(server, 'event.list', { limit: 500 });
    expect('next_cursor' in last).toBe(false);
  });

  it('walks each record exactly once while new events are being published', async () => {
    await server.runtime.waitForIdle();
    const snapshot = (await walk(server, 'event.list', { limit: 500 })).items.map((e) => e.event_id);
    let published = 0;
    const walked = await walk(server, 'event.list', { limit: 4 }, async () => {
      await publishTicket(published++);
    });
    const ids = walked.items.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(snapshot);
    expect(published).toBeGreaterThan(5);
    await server.runtime.waitForIdle();
    const after = await ok(server, 'event.list', { filter: { event_name: 'ticket.created' }, limit: 500 });
    const fresh = after.events.filter((e: Ev) => e.entity_id?.startsWith('ticket-X-'));
    expect(fresh).toHaveLength(published);
    allEvents = (await walk(server, 'event.list', { limit: 500 })).items;
  });

  it('refuses a cursor reused with another filter, another method, tampered or malformed', async () => {
    const first = await ok(server, 'event.list', { filter: { event_name: 'ticket.created' }, limit: 1 });
    const cursor = first.next_cursor!;
    // Same filter, another page size: fine.
    expect((await ok(server, 'event.list', { filter: { event_name: 'ticket.created' }, limit: 2, cursor })).events).toHaveLength(2);
    const other = await errorOf(server, 'event.list', { filter: { event_name: 'refund.paid' }, cursor });
    expect(other.code).toBe('INVALID_CURSOR');
    expect((await errorOf(server, 'event.list', { cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorOf(server, 'event.list', { filter: { event_name: 'ticket.created' }, since: allEvents.at(-1)!.created_at, cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorOf(server, 'mailbox.list', { cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorOf(server, 'conversation.list', { cursor })).code).toBe('INVALID_CURSOR');
    const [body, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
    decoded.p.seq += 1;
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    const tampered = await errorOf(server, 'event.list', { filter: { event_name: 'ticket.created' }, cursor: forged });
    expect(tampered.code).toBe('INVALID_CURSOR');
    const flipped = body.slice(0, -1) + (body.endsWith('A') ? 'B' : 'A') + '.' + mac;
    expect((await errorOf(server, 'event.list', { filter: { event_name: 'ticket.created' }, cursor: flipped })).code).toBe('INVALID_CURSOR');
    for (const junk of ['not-a-cursor', 'a.b.c', '....', '%%%.%%%']) {
      const err = await errorOf(server, 'event.list', { filter: { event_name: 'ticket.created' }, cursor: junk });
      expect(err.code).toBe('INVALID_CURSOR');
      expect(err.message).not.toMatch(/at .*\.ts|SELECT|sqlite/i);
    }
  });
});

describe('event.list payload conditions', () => {
  const ticketOf = (e: Ev) => e.payload.ticket_id as string | undefined;

  it('finds events by a declared (indexed) payload field, with other filters and in pages', async () => {
    const ticket = allEvents.map(ticketOf).find((t) => t !== undefined && allEvents.filter((e) => ticketOf(e) === t).length > 1)!;
    const want = allEvents.filter((e) => ticketOf(e) === ticket).map((e) => e.event_id);
    const filter = { payload: [{ path: 'ticket_id', op: 'eq' as const, value: ticket }] };
    const first = await ok(server, 'event.list', { filter, limit: 1 });
    expect(first.payload_search).toEqual({ indexed: true, scan_limited: false });
    expect((await walk(server, 'event.list', { filter, limit: 1 })).items.map((e) => e.event_id)).toEqual(want);
    const named = { ...filter, event_name: 'ticket.created' };
    expect((await walk(server, 'event.list', { filter: named, limit: 2 })).items.map((e) => e.event_id)).toEqual(
      allEvents.filter((e) => ticketOf(e) === ticket && e.event_name === 'ticket.created').map((e) => e.event_id),
    );
  });

  it('takes in, prefix and exists, typed: a string never matches a number', async () => {
    const tickets = [...new Set(allEvents.map(ticketOf).filter((t): t is string => t !== undefined))].slice(0, 3);
    const inList = await walk(server, 'event.list', { filter: { payload: [{ path: 'ticket_id', op: 'in', value: tickets }] }, limit: 4 });
    expect(inList.items.map((e) => e.event_id)).toEqual(allEvents.filter((e) => tickets.includes(ticketOf(e)!)).map((e) => e.event_id));
    const prefix = tickets[0]!.slice(0, 3);
    const byPrefix = await walk(server, 'event.list', { filter: { payload: [{ path: 'ticket_id', op: 'prefix', value: prefix }] } });
    expect(byPrefix.items.map((e) => e.event_id)).toEqual(allEvents.filter((e) => ticketOf(e)?.startsWith(prefix)).map((e) => e.event_id));
    const withAmount = await walk(server, 'event.list', { filter: { payload: [{ path: 'amount', op: 'exists' }] } });
    const want = allEvents.filter((e) => e.payload.amount !== undefined && e.payload.amount !== null);
    expect(want.length).toBeGreaterThan(0);
    expect(withAmount.items.map((e) => e.event_id)).toEqual(want.map((e) => e.event_id));
    const amount = want[0]!.payload.amount as number;
    const asNumber = await walk(server, 'event.list', { filter: { payload: [{ path: 'amount', op: 'eq', value: amount }] } });
    expect(asNumber.items.map((e) => e.event_id)).toEqual(allEvents.filter((e) => e.payload.amount === amount).map((e) => e.event_id));
    const asText = await ok(server, 'event.list', { filter: { payload: [{ path: 'amount', op: 'eq', value: String(amount) }] } });
    expect(asText.events).toEqual([]);
    expect(asText.payload_search?.indexed).toBe(false);
  });

  it('combines with the filters that walk deliveries and dead letters (subscriber, reason code)', async () => {
    const reason = allEvents.flatMap((e) => [...e.deliveries.map((d) => d.reason_code), ...e.dead_letters.map((l) => l.reason_code)]).find(Boolean)!;
    const exists = [{ path: 'ticket_id', op: 'exists' as const }];
    for (const filter of [
      { subscriber_id: 'triage-agent', payload: exists },
      { reason_code: reason, payload: exists },
      { event_name: 'ticket.created', subscriber_id: 'triage-agent', payload: exists },
      { has_dead_letter: true, payload: [{ path: 'ticket_id', op: 'prefix' as const, value: 'T' }] },
    ]) {
      const want = allEvents.filter((e) => matches(e, filter) && (filter.payload[0]!.op === 'exists' ? ticketOf(e) != null : String(ticketOf(e) ?? '').startsWith('T')));
      expect(want.length, JSON.stringify(filter)).toBeGreaterThan(0);
      expect((await walk(server, 'event.list', { filter, limit: 2 })).items.map((e) => e.event_id), JSON.stringify(filter)).toEqual(want.map((e) => e.event_id));
    }
  });

  it('binds the cursor to the payload conditions', async () => {
    const filter = { payload: [{ path: 'ticket_id', op: 'exists' as const }] };
    const { next_cursor } = await ok(server, 'event.list', { filter, limit: 1 });
    expect(next_cursor).toBeDefined();
    const other = await errorOf(server, 'event.list', { filter: { payload: [{ path: 'order_id', op: 'exists' }] }, cursor: next_cursor });
    expect(other.code).toBe('INVALID_CURSOR');
  });

  it('refuses malformed conditions with INVALID_PARAMS saying what is wrong', async () => {
    const refused: [unknown, RegExp][] = [
      [[{ path: 'a..b', op: 'eq', value: 'x' }], /path segment "" must be/],
      [[{ path: '1st', op: 'eq', value: 'x' }], /path segment "1st"/],
      [[{ path: "a'); drop table events; --", op: 'eq', value: 'x' }], /path segment/],
      [[{ path: 'a.b.c.d.e.f.g.h.i', op: 'exists' }], /at most 8 segments/],
      [[{ path: 'x'.repeat(201), op: 'exists' }], /at most 200 characters/],
      [[{ path: '', op: 'exists' }], /must not be empty/],
      [Array.from({ length: 9 }, () => ({ path: 'a', op: 'exists' })), /at most 8 payload conditions/],
      [[{ path: 'a', op: 'in', value: Array.from({ length: 101 }, (_, i) => i) }], /at most 100 values/],
      [[{ path: 'a', op: 'in', value: [] }], /.+/],
      [[{ path: 'a', op: 'eq', value: { nested: 1 } }], /.+/],
      [[{ path: 'a', op: 'eq', value: 'x'.repeat(501) }], /at most 500 characters/],
      [[{ path: 'a', op: 'eq' }], /.+/],
      [[{ path: 'a', op: 'prefix', value: 5 }], /.+/],
      [[{ path: 'a', op: 'exists', value: 'x' }], /.+/],
      [[{ path: 'a', op: 'like', value: 'x' }], /op must be one of eq, in, prefix, exists/],
      [[], /.+/],
    ];
    for (const [payload, message] of refused) {
      const err = await errorOf(server, 'event.list', { filter: { payload } });
      expect(err.code, JSON.stringify(payload)).toBe('INVALID_PARAMS');
      const messages = ((err.details as { issues?: { path: string; message: string }[] }).issues ?? []).map((i) => `${i.path}: ${i.message}`).join('; ');
      expect(messages, JSON.stringify(payload)).toMatch(message);
    }
  });
});
