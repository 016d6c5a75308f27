/**
 * Payload conditions against a reference model, on the engine the run uses: seeded random payloads
 * (strings, numbers, booleans, nulls, nested objects, look-alikes such as "5" and 5) and random
 * conditions, alone and with the other filters, walked page by page (indexed, and unindexed through
 * a small scan bound) and compared with the same conditions evaluated in plain TypeScript.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayloadCondition, PayloadScalar } from '@switchboard/contract';
import { databaseOf, openTestStore, testEngine, seededRandom } from '@switchboard/store/testing';
import { Store, eventConditionsOf, payloadIndexName, type BulkEvent, type EventFilter, type EventPosition, type PageTables } from '@switchboard/store';
import { STORE_ENGINES } from '../../src/engines/index';

const rand = seededRandom(39);
const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const chance = (p: number) => rand() < p;

const BASE = Date.parse('2026-05-01T00:00:00.000Z');
const ENTITIES = ['ent-a', 'ent-b', 'ent-c'];
const NAMES = ['ticket.created', 'refund.requested', 'order.placed'];
const TICKETS = ['T-1', 'T-10', 'T-1030', 'T-2', 'Té-€', '5', 'ticket 🎫'];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A scalar drawn so that look-alikes collide often: "5" and 5, 1 and true, 0 and false. */
function scalar(): Json {
  return pick<Json>(['T-1', 'T-10', 'T-1030', '5', '1', 'true', 5, 1, 0, 2.5, -3, 1e21, true, false, null, 'Té-€', 'ticket 🎫', '']);
}

function randomPayload(i: number): Record<string, Json> {
  const p: Record<string, Json> = { i };
  if (chance(0.8)) p.ticket_id = chance(0.75) ? pick(TICKETS) : scalar();
  if (chance(0.2)) p.ticket_id = { nested: 'T-1' };
  if (chance(0.6)) p.amount = pick<Json>([5, 10, 2.5, 0, '5', '10', true, null]);
  if (chance(0.4)) p.flag = pick<Json>([true, false, 1, 0, 'true', null]);
  if (chance(0.6)) p.customer = chance(0.85) ? { id: chance(0.5) ? pick(['c-1', 'c-2', 'c-10']) : pick<Json>([1, 2, '1', null]), tier: pick(['gold', 'silver']) } : pick<Json>(['c-1', [1, 2], null]);
  if (chance(0.05)) p.note = 'held \u0000 here';
  return p;
}

function valueAt(payload: unknown, p: string): unknown {
  let v: unknown = payload;
  for (const segment of p.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, segment)) return undefined;
    v = (v as Record<string, unknown>)[segment];
  }
  return v;
}

const typedEqual = (v: unknown, want: PayloadScalar) => v !== null && typeof v === typeof want && v === want;

function holds(payload: unknown, c: PayloadCondition): boolean {
  const v = valueAt(payload, c.path);
  switch (c.op) {
    case 'eq':
      return typedEqual(v, c.value as PayloadScalar);
    case 'in':
      return (c.value as PayloadScalar[]).some((want) => typedEqual(v, want));
    case 'prefix':
      return typeof v === 'string' && v.startsWith(c.value as string);
    case 'exists':
      return v !== undefined && v !== null;
  }
}

const PATHS = ['ticket_id', 'amount', 'flag', 'customer.id', 'customer.tier', 'customer', 'missing', 'customer.id.deeper'];
const SCALARS: PayloadScalar[] = ['T-1', 'T-10', 'T-1030', '5', '1', 'true', 5, 1, 0, 2.5, 1e21, 10, true, false, 'c-1', 'c-10', 'gold', 'Té-€', 'ticket 🎫', ''];
const PREFIXES = ['T-1', 'T', 'Té', 'c-', 'g', '5', 'ticket 🎫', 'T-10300'];

function randomCondition(): PayloadCondition {
  const p = pick(PATHS);
  // Often a value some event holds, so that many conditions match something.
  const held = valueAt(pick(reference).payload, p);
  if (chance(0.6) && held !== null && ['string', 'number', 'boolean'].includes(typeof held)) {
    const v = held as PayloadScalar;
    if (typeof v === 'string' && v.length > 0 && chance(0.3)) return { path: p, op: 'prefix', value: v.slice(0, 1 + Math.floor(rand() * v.length)) };
    return chance(0.7) ? { path: p, op: 'eq', value: v } : { path: p, op: 'in', value: [v, pick(SCALARS)] };
  }
  switch (pick(['eq', 'eq', 'in', 'prefix', 'exists'] as const)) {
    case 'eq':
      return { path: p, op: 'eq', value: pick(SCALARS) };
    case 'in':
      return { path: p, op: 'in', value: Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(SCALARS)) };
    case 'prefix':
      return { path: p, op: 'prefix', value: pick(PREFIXES) };
    case 'exists':
      return { path: p, op: 'exists' };
  }
}

interface RefEvent {
  event_id: string;
  created_at: string;
  seq: number;
  entity_id: string | null;
  event_name: string;
  payload: unknown;
}

let dir: string;
let store: Store;
const reference: RefEvent[] = [];

function buildEvents(count: number): BulkEvent[] {
  const batch: BulkEvent[] = [];
  let t = BASE;
  for (let i = 0; i < count; i++) {
    if (chance(0.7)) t += Math.floor(rand() * 4000);
    const created_at = new Date(t).toISOString();
    const event_id = `evt-${String(i).padStart(4, '0')}`;
    const payload = randomPayload(i);
    const event = {
      event_id,
      event_name: pick(NAMES),
      created_at,
      source: 'test',
      payload: JSON.stringify(payload),
      entity_id: chance(0.8) ? pick(ENTITIES) : null,
      run_id: null,
      chain_depth: 0,
      parent_event_id: null,
      has_dead_letter: 0,
    };
    batch.push({ event, deliveries: [], dead_letters: [] });
    reference.push({ event_id, created_at, seq: i + 1, entity_id: event.entity_id, event_name: event.event_name, payload });
  }
  return batch;
}

function expected(f: EventFilter): string[] {
  return reference
    .filter(
      (e) =>
        (f.entity_id === undefined || e.entity_id === f.entity_id) &&
        (f.event_name === undefined || e.event_name === f.event_name) &&
        (f.since === undefined || e.created_at >= f.since) &&
        (f.until === undefined || e.created_at < f.until) &&
        (f.payload ?? []).every((c) => holds(e.payload, c)),
    )
    .sort((a, b) => (a.created_at === b.created_at ? b.seq - a.seq : a.created_at < b.created_at ? 1 : -1))
    .map((e) => e.event_id);
}

/** Every page of `f`; pages may be short only where the scan bound stopped them. */
async function walk(f: EventFilter, limit: number, scanBound?: number): Promise<{ ids: string[]; pages: number; limitedPages: number }> {
  const ids: string[] = [];
  let after: EventPosition | undefined;
  let limitedPages = 0;
  for (let pages = 1; pages < 2000; pages++) {
    const page = await store.events.page(f, { limit, after, scanBound });
    expect(page.events.length).toBeLessThanOrEqual(limit);
    expect(page.payload_search !== undefined).toBe((f.payload ?? []).length > 0);
    ids.push(...page.events.map((e) => e.event_id));
    if (!page.next) return { ids, pages, limitedPages };
    if (page.payload_search?.scan_limited) limitedPages++;
    else expect(page.events.length).toBe(limit);
    after = page.next;
  }
  throw new Error('walk did not end');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-payload-'));
  store = await openTestStore(dir);
  const batch = buildEvents(600);
  await store.events.bulkInsert(batch.slice(0, 250));
  // The indexes exist before the rest goes in, so inserts maintain them too.
  expect((await store.events.ensurePayloadIndexes(['ticket_id', 'customer.id'])).sort()).toEqual(['customer.id', 'ticket_id']);
  await store.events.bulkInsert(batch.slice(250));
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('payload conditions on events', () => {
  it('matches the reference for hand-picked look-alikes', async () => {
    const cases: PayloadCondition[][] = [
      [{ path: 'ticket_id', op: 'eq', value: '5' }],
      [{ path: 'ticket_id', op: 'eq', value: 5 }],
      [{ path: 'amount', op: 'eq', value: 5 }],
      [{ path: 'flag', op: 'eq', value: true }],
      [{ path: 'flag', op: 'eq', value: 1 }],
      [{ path: 'flag', op: 'eq', value: false }],
      [{ path: 'ticket_id', op: 'in', value: [true, 5, 'T-1'] }],
      [{ path: 'customer', op: 'exists' }],
      [{ path: 'customer.id', op: 'eq', value: 1 }],
      [{ path: 'ticket_id', op: 'prefix', value: 'T-1' }],
      [{ path: 'ticket_id', op: 'eq', value: 1e21 }],
      [{ path: 'ticket_id', op: 'eq', value: '' }],
      [{ path: 'ticket_id', op: 'exists' }, { path: 'customer.tier', op: 'eq', value: 'gold' }],
    ];
    for (const payload of cases) {
      const want = expected({ payload });
      expect((await walk({ payload }, 9)).ids, JSON.stringify(payload)).toEqual(want);
    }
    // The look-alikes are there: a typed comparison is what tells them apart.
    expect(expected({ payload: [{ path: 'ticket_id', op: 'eq', value: '5' }] }).length).toBeGreaterThan(0);
    expect(expected({ payload: [{ path: 'ticket_id', op: 'eq', value: 5 }] }).length).toBeGreaterThan(0);
  });

  it('matches the reference for random conditions with the other filters, in pages, indexed or with the scan bound', async () => {
    let nonEmpty = 0;
    let limited = 0;
    for (let round = 0; round < 150; round++) {
      const f: EventFilter = { payload: Array.from({ length: chance(0.6) ? 1 : chance(0.75) ? 2 : 3 }, randomCondition) };
      if (chance(0.3)) f.entity_id = pick(ENTITIES);
      if (chance(0.3)) f.event_name = pick(NAMES);
      if (chance(0.3)) {
        const a = Math.floor(rand() * reference.length);
        const b = Math.min(reference.length - 1, a + Math.floor(rand() * 300));
        f.since = reference[a]!.created_at;
        f.until = reference[b]!.created_at;
      }
      const want = expected(f);
      if (want.length > 0) nonEmpty++;
      const scanBound = chance(0.5) ? 1 + Math.floor(rand() * 120) : undefined;
      const got = await walk(f, 1 + Math.floor(rand() * 12), scanBound);
      limited += got.limitedPages;
      expect(got.ids, JSON.stringify({ f, scanBound })).toEqual(want);
    }
    expect(nonEmpty).toBeGreaterThan(30);
    expect(limited).toBeGreaterThan(10);
  });

  it('says whether an index served the search', async () => {
    const indexed = await store.events.page({ payload: [{ path: 'ticket_id', op: 'eq', value: 'T-1' }] }, { limit: 5 });
    expect(indexed.payload_search).toEqual({ indexed: true, scan_limited: false });
    const inList = await store.events.page({ payload: [{ path: 'customer.id', op: 'in', value: ['c-1', 2] }, { path: 'amount', op: 'exists' }] }, { limit: 5 });
    expect(inList.payload_search?.indexed).toBe(true);
    const prefix = await store.events.page({ payload: [{ path: 'ticket_id', op: 'prefix', value: 'T-1' }] }, { limit: 5 });
    expect(prefix.payload_search?.indexed).toBe(false);
    const unindexed = await store.events.page({ payload: [{ path: 'amount', op: 'eq', value: 5 }] }, { limit: 5 });
    expect(unindexed.payload_search?.indexed).toBe(false);
    expect((await store.events.page({}, { limit: 5 })).payload_search).toBeUndefined();
  });

  it('bounds an unindexed search: a page looks at most at the bound, and ends at the last event it looked at', async () => {
    const f: EventFilter = { payload: [{ path: 'amount', op: 'eq', value: 123456 }] };
    const first = await store.events.page(f, { limit: 10, scanBound: 100 });
    expect(first.events).toEqual([]);
    expect(first.payload_search).toEqual({ indexed: false, scan_limited: true, scanned_events: 100 });
    const newestFirst = [...reference].sort((a, b) => (a.created_at === b.created_at ? b.seq - a.seq : a.created_at < b.created_at ? 1 : -1));
    expect(first.next).toEqual({ created_at: newestFirst[99]!.created_at, seq: newestFirst[99]!.seq });
    const walked = await walk(f, 10, 100);
    expect(walked.ids).toEqual([]);
    expect(walked.pages).toBe(Math.ceil(reference.length / 100));
    expect(walked.limitedPages).toBe(walked.pages - 1);
    // A narrow filter bounds the walk already: no scan bound, no short pages.
    const narrow = await store.events.page({ ...f, entity_id: 'ent-a' }, { limit: 10, scanBound: 100 });
    expect(narrow.payload_search).toEqual({ indexed: false, scan_limited: false });
    expect(narrow.next).toBeUndefined();
  });

  it('creates each declared index once, and the list uses it', async () => {
    expect(await store.events.ensurePayloadIndexes(['ticket_id', 'customer.id'])).toEqual([]);
    const db = databaseOf(store) as unknown as Kysely<PageTables>;
    const engine = STORE_ENGINES[testEngine()];
    for (const [indexPath, value] of [
      ['ticket_id', 'T-1030'],
      ['customer.id', 'c-10'],
    ] as const) {
      const query = db
        .selectFrom('events as e')
        .selectAll('e')
        .where((eb) => eb.and(eventConditionsOf(eb, { payload: [{ path: indexPath, op: 'eq', value }] }, null, engine)))
        .orderBy('e.created_at', 'desc')
        .orderBy('e.seq', 'desc')
        .limit(51)
        .compile();
      const plan = await planOf(db, query.sql, query.parameters);
      expect(plan, plan).toContain(payloadIndexName(indexPath));
    }
  });
});

/** The query plan as text: EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL (sequential scans off, as on a large table). */
async function planOf(db: Kysely<PageTables>, text: string, parameters: readonly unknown[]): Promise<string> {
  if (testEngine() === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>({ sql: `explain query plan ${text}`, parameters, query: { kind: 'RawNode' } as never, queryId: { queryId: 'plan' } });
    return rows.map((r) => r.detail).join('\n');
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>({ sql: `explain ${text}`, parameters, query: { kind: 'RawNode' } as never, queryId: { queryId: 'plan' } });
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

describe('payload conditions on mailbox items', () => {
  it('matches the reference, in pages', async () => {
    const db = databaseOf(store);
    const items = Array.from({ length: 80 }, (_, i) => ({
      mailbox_id: `mbx-${String(i).padStart(3, '0')}`,
      created_at: new Date(BASE + i * 1000).toISOString(),
      payload: JSON.stringify(randomPayload(i)),
      priority: 'normal',
      source_flow: 'refund',
      status: chance(0.4) ? 'pending' : 'approved',
      type: 'refund_review',
      decided_at: null,
      decision: null,
      source_entity_id: null,
      source_event_id: null,
      run_id: null,
    }));
    await db.insertInto('mailbox_items').values(items).execute();
    for (let round = 0; round < 30; round++) {
      const payload = Array.from({ length: 1 + Math.floor(rand() * 2) }, randomCondition);
      const status = chance(0.3) ? pick(['pending', 'approved']) : undefined;
      const pendingFirst = (x: (typeof items)[number]) => (x.status === 'pending' ? 0 : 1);
      const want = items
        .map((x, i) => ({ ...x, seq: i }))
        .filter((x) => (status === undefined || x.status === status) && payload.every((c) => holds(JSON.parse(x.payload), c)))
        .sort((a, b) => pendingFirst(a) - pendingFirst(b) || b.seq - a.seq)
        .map((x) => x.mailbox_id);
      const got: string[] = [];
      let after;
      for (;;) {
        const page = await store.mailboxReads.page({ payload, ...(status ? { status } : {}) }, { limit: 7, after });
        got.push(...page.items.map((x) => x.mailbox_id));
        if (!page.next) break;
        after = page.next;
      }
      expect(got, JSON.stringify({ payload, status })).toEqual(want);
    }
  });
});

describe('payloads JSON text holds but jsonb cannot', () => {
  it('neither fail the insert of an indexed event nor a search that reads them', async () => {
    const oddDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-payload-odd-'));
    const odd = await openTestStore(oddDir);
    try {
      await odd.events.ensurePayloadIndexes(['ticket_id']);
      const texts = [
        String.raw`{"ticket_id":"T-nul","note":"a\u0000b"}`,
        String.raw`{"ticket_id":"T-lone","note":"\udc00"}`,
        String.raw`{"ticket_id":"T-plain","note":"\u00e9"}`,
        '{"ticket_id":"T-fine"}',
      ];
      await odd.events.bulkInsert(
        texts.map((payload, i) => ({
          event: { event_id: `odd-${i}`, event_name: 'ticket.created', created_at: new Date(BASE + i).toISOString(), source: 'test', payload, entity_id: null, run_id: null, chain_depth: 0, parent_event_id: null, has_dead_letter: 0 },
          deliveries: [],
          dead_letters: [],
        })),
      );
      const ids = async (payload: PayloadCondition[]) => (await odd.events.page({ payload }, { limit: 10 })).events.map((e) => e.event_id);
      expect(await ids([{ path: 'ticket_id', op: 'eq', value: 'T-fine' }])).toEqual(['odd-3']);
      expect(await ids([{ path: 'ticket_id', op: 'eq', value: 'T-nul' }])).toEqual(['odd-0']);
      expect(await ids([{ path: 'ticket_id', op: 'eq', value: 'T-plain' }])).toEqual(['odd-2']);
      // Unindexed: every payload is read, the odd ones included.
      expect(await ids([{ path: 'ticket_id', op: 'prefix', value: 'T-f' }])).toEqual(['odd-3']);
      expect(await ids([{ path: 'note', op: 'eq', value: 'é' }])).toEqual(['odd-2']);
      // A lone surrogate in a value does not fail the search either.
      expect(await ids([{ path: 'note', op: 'eq', value: '\udc00x' }])).toEqual([]);
    } finally {
      await odd.close();
      fs.rmSync(oddDir, { recursive: true, force: true });
    }
  });
});
