/**
 * The read surface over HTTP against records the real runtime produced: tickets are published
 * into the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoScenario } from '@switchboard/runtime';
import { startTestServer, type TestServer } from './harness';

let server: TestServer;

async function ok(method: string, params?: unknown): Promise<any> {
  const res = await server.rpc(method, params);
  if (res.error) throw new Error(`${method} failed: ${JSON.stringify(res.error)}`);
  return res.result;
}

async function errorCode(method: string, params?: unknown): Promise<{ code: string; details: any; message: string }> {
  const res = await server.rpc(method, params);
  expect(res.error, `${method} ${JSON.stringify(params)} should fail`).toBeDefined();
  return { code: res.error.data.code, details: res.error.data.details, message: res.error.message };
}

type Ev = {
  event_id: string;
  event_name: string;
  created_at: string;
  entity_id?: string;
  run_id?: string;
  deliveries: { subscriber_id: string; reason_code?: string }[];
  dead_letters: { reason_code?: string }[];
};

/** Walks every page of a list method, returning all records and the number of pages. */
async function walk<T>(method: string, params: Record<string, unknown>, key: string, between?: () => Promise<void>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 1000; pages++) {
    const result = await ok(method, { ...params, ...(cursor ? { cursor } : {}) });
    items.push(...result[key]);
    if (!result.next_cursor) return { items, pages };
    cursor = result.next_cursor;
    if (between) await between();
  }
  throw new Error('walk did not end');
}

let allEvents: Ev[];

function publishTicket(i: number) {
  return server.runtime.publish({
    event_name: 'ticket.created',
    payload: { ticket_id: `X-${i}`, order_id: `ORD-X${i}`, customer: 'Test Customer', subject: 'Where is my parcel?', body: 'Tracking is stuck.', channel: 'chat', priority: 'normal' },
    entity_id: `ticket-X-${i}`,
  });
}

beforeAll(async () => {
  server = await startTestServer();
  // Enough tickets for more than one default page (50) of events.
  await runDemoScenario(server.runtime, { tickets: 20 });
  allEvents = (await walk<Ev>('event.list', { limit: 500 }, 'events')).items;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

function matches(e: Ev, f: Record<string, any>): boolean {
  return (
    (f.entity_id === undefined || e.entity_id === f.entity_id) &&
    (f.event_name === undefined || e.event_name === f.event_name) &&
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
    const count = await server.store.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
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
      const got = await walk<Ev>('event.list', { filter, limit: 3 }, 'events');
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
      const got = await walk<Ev>('event.list', { filter, limit: 2 }, 'events');
      expect(got.items.map((e) => e.event_id), JSON.stringify(filter)).toEqual(want);
    }
  });

  it('treats since as inclusive and until as exclusive', async () => {
    const pivot = allEvents[Math.floor(allEvents.length / 2)]!;
    const t = pivot.created_at;
    const since = (await walk<Ev>('event.list', { since: t, limit: 7 }, 'events')).items.map((e) => e.event_id);
    expect(since).toEqual(allEvents.filter((e) => e.created_at >= t).map((e) => e.event_id));
    expect(since).toContain(pivot.event_id);
    const until = (await walk<Ev>('event.list', { until: t, limit: 7 }, 'events')).items.map((e) => e.event_id);
    expect(until).toEqual(allEvents.filter((e) => e.created_at < t).map((e) => e.event_id));
    expect(until).not.toContain(pivot.event_id);
    const both = await ok('event.list', { since: t, until: t });
    expect(both.events).toEqual([]);
    const ranged = await walk<Ev>('event.list', { since: allEvents.at(-5)!.created_at, until: t, filter: { event_name: 'ticket.created' }, limit: 2 }, 'events');
    expect(ranged.items.map((e) => e.event_id)).toEqual(
      allEvents.filter((e) => e.created_at >= allEvents.at(-5)!.created_at && e.created_at < t && e.event_name === 'ticket.created').map((e) => e.event_id),
    );
  });

  it('validates limit: 1 and 500 accepted, 0 and 501 refused', async () => {
    const one = await ok('event.list', { limit: 1 });
    expect(one.events).toHaveLength(1);
    expect(one.next_cursor).toEqual(expect.any(String));
    const max = await ok('event.list', { limit: 500 });
    expect(max.events).toHaveLength(Math.min(500, allEvents.length));
    for (const limit of [0, 501, 2.5, -1]) {
      const err = await errorCode('event.list', { limit });
      expect(err.code).toBe('INVALID_PARAMS');
      expect(err.details.issues[0].path).toBe('limit');
    }
  });

  it('defaults limit to 50 and omits next_cursor on the last page', async () => {
    const first = await ok('event.list', {});
    // The demo seed holds more than one default page, so the first page must say there is more.
    expect(allEvents.length).toBeGreaterThan(50);
    expect(first.events).toHaveLength(50);
    expect(first.next_cursor).toBeDefined();
    const last = await ok('event.list', { limit: 500 });
    expect('next_cursor' in last).toBe(false);
  });

  it('walks each record exactly once while new events are being published', async () => {
    await server.runtime.waitForIdle();
    const snapshot = (await walk<Ev>('event.list', { limit: 500 }, 'events')).items.map((e) => e.event_id);
    let published = 0;
    const walked = await walk<Ev>('event.list', { limit: 4 }, 'events', async () => {
      await publishTicket(published++);
    });
    const ids = walked.items.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(snapshot);
    expect(published).toBeGreaterThan(5);
    await server.runtime.waitForIdle();
    const after = await ok('event.list', { filter: { event_name: 'ticket.created' }, limit: 500 });
    const fresh = after.events.filter((e: Ev) => e.entity_id?.startsWith('ticket-X-'));
    expect(fresh).toHaveLength(published);
    allEvents = (await walk<Ev>('event.list', { limit: 500 }, 'events')).items;
  });

  it('refuses a cursor reused with another filter, another method, tampered or malformed', async () => {
    const first = await ok('event.list', { filter: { event_name: 'ticket.created' }, limit: 1 });
    const cursor: string = first.next_cursor;
    // Same filter, another page size: fine.
    expect((await ok('event.list', { filter: { event_name: 'ticket.created' }, limit: 2, cursor })).events).toHaveLength(2);
    const other = await errorCode('event.list', { filter: { event_name: 'refund.paid' }, cursor });
    expect(other.code).toBe('INVALID_CURSOR');
    expect((await errorCode('event.list', { cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorCode('event.list', { filter: { event_name: 'ticket.created' }, since: allEvents.at(-1)!.created_at, cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorCode('mailbox.list', { cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorCode('conversation.list', { cursor })).code).toBe('INVALID_CURSOR');
    const [body, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
    decoded.p.seq += 1;
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    const tampered = await errorCode('event.list', { filter: { event_name: 'ticket.created' }, cursor: forged });
    expect(tampered.code).toBe('INVALID_CURSOR');
    const flipped = body.slice(0, -1) + (body.endsWith('A') ? 'B' : 'A') + '.' + mac;
    expect((await errorCode('event.list', { filter: { event_name: 'ticket.created' }, cursor: flipped })).code).toBe('INVALID_CURSOR');
    for (const junk of ['not-a-cursor', 'a.b.c', '....', '%%%.%%%']) {
      const err = await errorCode('event.list', { filter: { event_name: 'ticket.created' }, cursor: junk });
      expect(err.code).toBe('INVALID_CURSOR');
      expect(err.message).not.toMatch(/at .*\.ts|SELECT|sqlite/i);
    }
  });
});

describe('runtime.incidents and runtime.incident_logs', () => {
  it('groups warn-and-above log records by (component, error_code)', async () => {
    const { incidents } = await ok('runtime.incidents', { limit: 500 });
    expect(incidents.length).toBeGreaterThan(2);
    const keys = incidents.map((i: any) => `${i.component}|${i.error_code ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let i = 1; i < incidents.length; i++) expect(incidents[i - 1].last_seen >= incidents[i].last_seen).toBe(true);
    const rank = ['debug', 'info', 'warn', 'error', 'fatal'];
    for (const inc of incidents) {
      const { logs } = await ok('runtime.incident_logs', { incident_id: inc.incident_id, limit: 500 });
      expect(logs).toHaveLength(inc.count);
      expect(logs.every((l: any) => l.component === inc.component && l.error_code === inc.error_code)).toBe(true);
      expect(logs.slice(0, 5).map((l: any) => l.log_id)).toEqual(inc.sample_log_ids);
      expect(logs[0].message).toBe(inc.sample_message);
      expect(logs[0].ts).toBe(inc.last_seen);
      expect(logs.at(-1).ts).toBe(inc.first_seen);
      expect(inc.level).toBe(rank[Math.max(...logs.map((l: any) => rank.indexOf(l.level)))]);
      expect(rank.indexOf(inc.level)).toBeGreaterThanOrEqual(2);
      expect(inc.histogram).toHaveLength(24);
      expect(inc.histogram.reduce((a: number, b: number) => a + b, 0)).toBe(inc.count);
    }
  });

  it('filters by component and mcp_only, sorts by count, pages with a cursor', async () => {
    const all = (await ok('runtime.incidents', { limit: 500 })).incidents;
    const mcp = (await ok('runtime.incidents', { mcp_only: true })).incidents;
    expect(mcp.length).toBeGreaterThan(0);
    expect(mcp.every((i: any) => i.component.startsWith('mcp.'))).toBe(true);
    expect(mcp).toHaveLength(all.filter((i: any) => i.component.startsWith('mcp.')).length);
    const component = all[0].component;
    const byComponent = (await ok('runtime.incidents', { component })).incidents;
    expect(byComponent.map((i: any) => i.incident_id).sort()).toEqual(all.filter((i: any) => i.component === component).map((i: any) => i.incident_id).sort());
    const byCount = (await walk<any>('runtime.incidents', { sort: 'count', limit: 1 }, 'incidents')).items;
    expect(byCount.map((i) => i.incident_id).sort()).toEqual(all.map((i: any) => i.incident_id).sort());
    for (let i = 1; i < byCount.length; i++) expect(byCount[i - 1].count >= byCount[i].count).toBe(true);
    const paged = await walk<any>('runtime.incidents', { limit: 2 }, 'incidents');
    expect(paged.items.map((i) => i.incident_id)).toEqual(all.map((i: any) => i.incident_id));
    const hist = (await ok('runtime.incidents', { histogram_buckets: 6, limit: 1 })).incidents[0];
    expect(hist.histogram).toHaveLength(6);
    const first = await ok('runtime.incidents', { limit: 1 });
    expect((await errorCode('runtime.incidents', { limit: 1, mcp_only: true, cursor: first.next_cursor })).code).toBe('INVALID_CURSOR');
    expect((await errorCode('runtime.incidents', { limit: 0 })).code).toBe('INVALID_PARAMS');
  });

  it('answers NOT_FOUND for an unknown incident', async () => {
    for (const id of ['inc_nope', 'nothing', `inc_${Buffer.from(JSON.stringify(['no.such.component', 'X'])).toString('base64url')}`]) {
      const err = await errorCode('runtime.incident_logs', { incident_id: id });
      expect(err.code).toBe('NOT_FOUND');
      expect(err.details).toEqual({ resource: 'incident', id });
    }
  });
});

describe('mailbox, conversations, agents, runs, status', () => {
  it('lists mailbox items pending first, then newest, with filters and a cursor walk', async () => {
    const { items } = await walk<any>('mailbox.list', { limit: 2 }, 'items');
    expect(items.length).toBeGreaterThan(3);
    const firstDecided = items.findIndex((i) => i.status !== 'pending');
    expect(firstDecided).toBeGreaterThan(0);
    expect(items.slice(firstDecided).every((i) => i.status !== 'pending')).toBe(true);
    for (let i = 1; i < firstDecided; i++) expect(items[i - 1].created_at >= items[i].created_at).toBe(true);
    const pending = await walk<any>('mailbox.list', { filter: { status: 'pending' }, limit: 1 }, 'items');
    expect(pending.items.map((i) => i.mailbox_id)).toEqual(items.slice(0, firstDecided).map((i) => i.mailbox_id));
    const type = items[0].type;
    const byType = (await ok('mailbox.list', { filter: { type, source_flow: items[0].source_flow, priority: items[0].priority }, limit: 500 })).items;
    expect(byType.map((i: any) => i.mailbox_id)).toEqual(
      items.filter((i) => i.type === type && i.source_flow === items[0].source_flow && i.priority === items[0].priority).map((i) => i.mailbox_id),
    );
    expect((await errorCode('mailbox.list', { filter: { status: 'archived' } })).code).toBe('INVALID_PARAMS');
    for (const item of items) expect(Object.values(item)).not.toContain(null);
  });

  it('reads one mailbox item with history and decision sheet', async () => {
    const decided = (await ok('mailbox.list', { filter: { status: 'approved' }, limit: 1 })).items[0];
    const got = await ok('mailbox.get', { mailbox_id: decided.mailbox_id });
    expect(got.item).toEqual(decided);
    expect(got.payload).toEqual(decided.payload);
    expect(got.history.map((h: any) => h.action)).toEqual(['created', 'approved']);
    expect(got.decision_sheet.downstream_preview.subscriber_source).toBe('event_catalog');
    const err = await errorCode('mailbox.get', { mailbox_id: 'mbx_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'mailbox_item', id: 'mbx_missing' } });
  });

  it('lists conversations newest first with filters, and reads one with its turns in order', async () => {
    const { items } = await walk<any>('conversation.list', { limit: 3 }, 'conversations');
    expect(items.length).toBeGreaterThan(1);
    for (let i = 1; i < items.length; i++) expect(items[i - 1].started_at >= items[i].started_at).toBe(true);
    const agentId = items[0].agent_id;
    const mine = (await ok('conversation.list', { filter: { agent_id: agentId }, limit: 500 })).conversations;
    expect(mine.map((c: any) => c.session_id)).toEqual(items.filter((c) => c.agent_id === agentId).map((c) => c.session_id));
    const withRun = items.find((c) => c.run_id);
    if (withRun) {
      const byRun = (await ok('conversation.list', { filter: { run_id: withRun.run_id } })).conversations;
      expect(byRun.every((c: any) => c.run_id === withRun.run_id)).toBe(true);
    }
    const status = items[0].status;
    expect((await ok('conversation.list', { filter: { status } })).conversations.every((c: any) => c.status === status)).toBe(true);
    const full = await ok('conversation.get', { session_id: items[0].session_id });
    expect(full.conversation).toEqual(items[0]);
    expect(full.turns).toHaveLength(items[0].turn_count);
    expect(full.turns.map((t: any) => t.turn_index)).toEqual([...full.turns.map((t: any) => t.turn_index)].sort((a: number, b: number) => a - b));
    const err = await errorCode('conversation.get', { session_id: 'ses_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'conversation', id: 'ses_missing' } });
  });

  it('lists and reads agents with references only', async () => {
    const { items } = await walk<any>('agent.list', { limit: 1 }, 'agents');
    expect(items.map((a) => a.agent_id)).toEqual(server.runtime.bundle.definition.agents.map((a) => a.agent_id).sort());
    for (const listed of items) {
      const got = await ok('agent.get', { agent_id: listed.agent_id });
      const { current_session_ref, last_turn_ref, ...agent } = listed;
      expect(got.agent).toEqual(agent);
      expect(got.current_session_ref).toEqual(current_session_ref);
      expect(got.last_turn_ref).toEqual(last_turn_ref);
      expect(JSON.stringify(got)).not.toMatch(/turn_blocks|request_payload|response_payload/);
    }
    const err = await errorCode('agent.get', { agent_id: 'nobody' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'agent', id: 'nobody' } });
  });

  it('reads a run with its event and dead-letter counts', async () => {
    const dead = allEvents.find((e) => e.dead_letters.length > 0)!;
    const { run } = await ok('run.get', { run_id: dead.run_id });
    const runEvents = allEvents.filter((e) => e.run_id === dead.run_id);
    expect(run.event_count).toBe(runEvents.length);
    expect(run.dead_letter_count).toBe(runEvents.reduce((n, e) => n + e.dead_letters.length, 0));
    expect(run.dead_letter_count).toBeGreaterThan(0);
    expect(runEvents.map((e) => e.event_id)).toContain(run.root_event_id);
    const err = await errorCode('run.get', { run_id: 'run_missing' });
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'run', id: 'run_missing' } });
  });

  it('reports runtime status', async () => {
    await server.runtime.waitForIdle();
    const status = await ok('runtime.status', {});
    expect(status).toMatchObject({ name: 'support-desk', ingress: 'open', queue_depth: 0, pending_deliveries: 0, reset_in_progress: false });
    expect(status.bundle.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
