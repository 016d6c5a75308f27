/**
 * The read repositories against a reference model: a seeded random data set is written through
 * bulkInsert, and every filter (alone and combined) is walked page by page and compared with the
 * same filter applied in plain TypeScript.
 */
import fs from 'node:fs';
import { databaseOf, expectedIncidentGroups, openTestStore, type ReferenceLog, seededRandom } from '@switchboard/store/testing';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store, incidentGroupKey, type BulkEvent, type EventFilter, type EventPosition, type NewLogRecord } from '@switchboard/store';

/** Small deterministic PRNG so a failure reproduces. */
const rand = seededRandom(42);
const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const BASE = Date.parse('2026-03-01T00:00:00.000Z');
const ENTITIES = ['ent-a', 'ent-b', 'ent-c', 'ent-d'];
const NAMES = ['ticket.created', 'refund.requested', 'refund.paid'];
const RUNS = ['run-1', 'run-2', 'run-3', 'run-4', 'run-5'];
const SUBSCRIBERS = ['triage-agent', 'open-ticket', 'pay-refund', 'notify-agent'];
const REASONS = ['tool_error', 'timeout', 'output_unparseable'];

interface RefEvent {
  event_id: string;
  created_at: string;
  seq: number;
  entity_id: string | null;
  event_name: string;
  run_id: string | null;
  subscribers: string[];
  reasons: string[];
  dead: boolean;
}

let dir: string;
let store: Store;
const reference: RefEvent[] = [];
let inserted: BulkEvent[] = [];

function buildEvents(count: number): BulkEvent[] {
  const batch: BulkEvent[] = [];
  let t = BASE;
  for (let i = 0; i < count; i++) {
    // Repeated timestamps on purpose: the seq tie-break must keep pages exact.
    if (rand() < 0.7) t += Math.floor(rand() * 5000);
    const created_at = new Date(t).toISOString();
    const event_id = `evt-${String(i).padStart(4, '0')}`;
    const run_id = rand() < 0.9 ? pick(RUNS) : null;
    const subscribers = SUBSCRIBERS.filter(() => rand() < 0.45);
    const deliveries = subscribers.map((subscriber_id, j) => {
      const reason_code = rand() < 0.2 ? pick(REASONS) : null;
      return {
        delivery_id: `${event_id}-d${j}`,
        run_id,
        subscriber_id,
        subscriber_type: subscriber_id.endsWith('agent') ? 'agent' : 'node',
        status: reason_code ? 'failed' : 'delivered',
        attempts: reason_code ? 3 : 1,
        max_attempts: 3,
        next_attempt_at: created_at,
        lease_owner: null,
        lease_expires_at: null,
        last_error: reason_code ? `failed: ${reason_code}` : null,
        reason_code,
        session_id: null,
        created_at,
        updated_at: created_at,
      };
    });
    const dead_letters = deliveries
      .filter((d) => d.reason_code && rand() < 0.6)
      .map((d, j) => ({
        dead_letter_id: `${event_id}-l${j}`,
        delivery_id: d.delivery_id,
        run_id,
        subscriber_id: d.subscriber_id,
        chain_depth: 0,
        created_at,
        failure_type: 'handler_error',
        retry_count: 2,
        error_message: d.last_error,
        handler_node: d.subscriber_id,
        // Sometimes a dead letter carries a reason its delivery does not.
        reason_code: rand() < 0.3 ? 'dead_only' : d.reason_code,
      }));
    const event = {
      event_id,
      event_name: pick(NAMES),
      created_at,
      source: 'test',
      payload: JSON.stringify({ i }),
      entity_id: rand() < 0.85 ? pick(ENTITIES) : null,
      run_id,
      chain_depth: 0,
      parent_event_id: null,
      has_dead_letter: 0,
    };
    batch.push({ event, deliveries, dead_letters });
    reference.push({
      event_id,
      created_at,
      seq: i + 1,
      entity_id: event.entity_id,
      event_name: event.event_name,
      run_id,
      subscribers,
      reasons: [...deliveries.flatMap((d) => (d.reason_code ? [d.reason_code] : [])), ...dead_letters.flatMap((l) => (l.reason_code ? [l.reason_code] : []))],
      dead: dead_letters.length > 0,
    });
  }
  return batch;
}

function expected(f: EventFilter): string[] {
  return reference
    .filter(
      (e) =>
        (f.event_id === undefined || e.event_id === f.event_id) &&
        (f.entity_id === undefined || e.entity_id === f.entity_id) &&
        (f.event_name === undefined || e.event_name === f.event_name) &&
        (f.run_id === undefined || e.run_id === f.run_id) &&
        (f.has_dead_letter === undefined || e.dead === f.has_dead_letter) &&
        (f.subscriber_id === undefined || e.subscribers.includes(f.subscriber_id)) &&
        (f.reason_code === undefined || e.reasons.includes(f.reason_code)) &&
        (f.since === undefined || e.created_at >= f.since) &&
        (f.until === undefined || e.created_at < f.until),
    )
    .sort((a, b) => (a.created_at === b.created_at ? b.seq - a.seq : a.created_at < b.created_at ? 1 : -1))
    .map((e) => e.event_id);
}

async function walk(f: EventFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: EventPosition | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.events.page(f, { limit, after });
    expect(page.events.length).toBeLessThanOrEqual(limit);
    ids.push(...page.events.map((e) => e.event_id));
    if (!page.next) return ids;
    expect(page.events.length).toBe(limit);
    after = page.next;
  }
  throw new Error('walk did not end');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-reads-'));
  store = await openTestStore(dir);
  const batch = buildEvents(400);
  inserted = batch;
  await store.events.bulkInsert(batch.slice(0, 150));
  await store.events.bulkInsert(batch.slice(150));
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('EventRepository.page', () => {
  const mid = () => reference[200]!.created_at;
  const single: [string, () => EventFilter][] = [
    ['no filter', () => ({})],
    ['entity_id', () => ({ entity_id: 'ent-b' })],
    ['event_name', () => ({ event_name: 'refund.requested' })],
    ['run_id', () => ({ run_id: 'run-3' })],
    ['has_dead_letter true', () => ({ has_dead_letter: true })],
    ['has_dead_letter false', () => ({ has_dead_letter: false })],
    ['subscriber_id', () => ({ subscriber_id: 'pay-refund' })],
    ['reason_code on deliveries', () => ({ reason_code: 'timeout' })],
    ['reason_code only on dead letters', () => ({ reason_code: 'dead_only' })],
    ['event_id', () => ({ event_id: reference[123]!.event_id })],
    ['since', () => ({ since: mid() })],
    ['until', () => ({ until: mid() })],
    ['since and until', () => ({ since: reference[100]!.created_at, until: reference[300]!.created_at })],
  ];
  for (const [name, make] of single) {
    it(`walks every page exactly once: ${name}`, async () => {
      const f = make();
      const want = expected(f);
      expect(want.length).toBeGreaterThan(0);
      expect(await walk(f, 7)).toEqual(want);
    });
  }

  it('treats since as inclusive and until as exclusive, also on repeated timestamps', async () => {
    const t = reference.find((e, i) => i > 0 && reference[i - 1]!.created_at === e.created_at)!.created_at;
    const atT = reference.filter((e) => e.created_at === t).map((e) => e.event_id);
    expect(atT.length).toBeGreaterThan(1);
    const fromT = await walk({ since: t, until: new Date(Date.parse(t) + 1).toISOString() }, 1);
    expect(fromT.sort()).toEqual([...atT].sort());
    expect(await walk({ since: t, until: t }, 5)).toEqual([]);
    const beforeT = await walk({ until: t }, 50);
    expect(beforeT.some((id) => atT.includes(id))).toBe(false);
  });

  const filters: EventFilter[] = [
    { entity_id: 'ent-a' },
    { event_name: 'ticket.created' },
    { run_id: 'run-2' },
    { has_dead_letter: true },
    { has_dead_letter: false },
    { subscriber_id: 'triage-agent' },
    { reason_code: 'tool_error' },
  ];
  it('combines every pair of filters, each with and without a time range', async () => {
    const since = reference[60]!.created_at;
    const until = reference[340]!.created_at;
    let nonEmpty = 0;
    for (let i = 0; i < filters.length; i++) {
      for (let j = i + 1; j < filters.length; j++) {
        if ('has_dead_letter' in filters[i]! && 'has_dead_letter' in filters[j]!) continue;
        for (const range of [{}, { since, until }]) {
          const f = { ...filters[i], ...filters[j], ...range };
          const want = expected(f);
          if (want.length > 0) nonEmpty++;
          expect(await walk(f, 4), JSON.stringify(f)).toEqual(want);
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  it('combines all filters at once', async () => {
    const sample = reference.find((e) => e.dead && e.entity_id && e.run_id && e.subscribers.length > 0 && e.reasons.length > 0)!;
    const f: EventFilter = {
      entity_id: sample.entity_id!,
      event_name: sample.event_name,
      run_id: sample.run_id!,
      has_dead_letter: true,
      subscriber_id: sample.subscribers[0]!,
      reason_code: sample.reasons[0]!,
      since: sample.created_at,
      until: new Date(Date.parse(sample.created_at) + 1).toISOString(),
    };
    expect(await walk(f, 2)).toEqual(expected(f));
    expect(await walk({ ...f, event_id: sample.event_id }, 2)).toEqual([sample.event_id]);
  });

  it('nests each event’s deliveries and dead letters', async () => {
    const page = await store.events.page({ has_dead_letter: true }, { limit: 50 });
    for (const e of page.events) {
      const ref = reference.find((r) => r.event_id === e.event_id)!;
      expect(e.deliveries.map((d) => d.subscriber_id).sort()).toEqual([...ref.subscribers].sort());
      expect(e.dead_letters.length).toBeGreaterThan(0);
      for (const l of e.dead_letters) expect(l.event_id).toBe(e.event_id);
      expect(e.has_dead_letter).toBe(1);
    }
  });

  it.each([
    ['events with dead letters', { has_dead_letter: true }],
    ['events with and without', {}],
  ] as [string, EventFilter][])('nests every column of the deliveries and dead letters as written, with their types, in order (%s)', async (_, filter) => {
    const page = await store.events.page(filter, { limit: 50 });
    expect(page.events.length).toBe(50);
    if (filter.has_dead_letter === undefined) expect(new Set(page.events.map((e) => e.dead_letters.length > 0))).toEqual(new Set([true, false]));
    for (const e of page.events) {
      const written = inserted.find((b) => b.event.event_id === e.event_id)!;
      const byCreatedThenId = <T extends { created_at: string }>(id: (x: T) => string) => (a: T, b: T) =>
        a.created_at.localeCompare(b.created_at) || id(a).localeCompare(id(b));
      expect(e.deliveries).toEqual(
        [...written.deliveries].sort(byCreatedThenId((d) => d.delivery_id)).map((d) => ({
          delivery_id: d.delivery_id,
          event_id: e.event_id,
          status: d.status,
          subscriber_id: d.subscriber_id,
          subscriber_type: d.subscriber_type,
          last_error: d.last_error,
          reason_code: d.reason_code,
          session_id: d.session_id,
          attempts: d.attempts,
          redrive_of_dead_letter_id: null,
        })),
      );
      expect(e.dead_letters).toEqual(
        [...written.dead_letters].sort(byCreatedThenId((l) => l.dead_letter_id)).map((l) => ({
          dead_letter_id: l.dead_letter_id,
          event_id: e.event_id,
          delivery_id: l.delivery_id,
          subscriber_id: l.subscriber_id,
          chain_depth: l.chain_depth,
          created_at: l.created_at,
          failure_type: l.failure_type,
          retry_count: l.retry_count,
          error_message: l.error_message,
          handler_node: l.handler_node,
          reason_code: l.reason_code,
          redriven_at: null,
          redriven_by_token_id: null,
          redrive_operation_id: null,
          redrive_delivery_id: null,
        })),
      );
    }
  });

  it('returns nothing for an unknown value and no next position on the last page', async () => {
    expect(await store.events.page({ entity_id: 'nope' }, { limit: 5 })).toEqual({ events: [] });
    const all = expected({});
    const last = await store.events.page({}, { limit: all.length });
    expect(last.next).toBeUndefined();
    expect(last.events).toHaveLength(all.length);
  });
});

describe('IncidentRepository', () => {
  const W_START = '2026-04-01T00:00:00.000Z';
  const W_END = '2026-04-02T00:00:00.000Z';
  const logs: ReferenceLog[] = [];
  const LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'];

  beforeAll(async () => {
    const r = seededRandom(7);
    const components = ['dispatcher', 'agent.triage-agent', 'mcp.payments', 'mcp.crm', 'ingress'];
    const codes = ['DELIVERY_RETRY', 'DEAD_LETTER', 'MCP_TOOL_ERROR', null];
    const rows: NewLogRecord[] = [];
    for (let i = 0; i < 600; i++) {
      // Some records fall outside the window on either side.
      const ts = new Date(Date.parse(W_START) - 3 * 3600_000 + Math.floor(r() * 30 * 3600_000)).toISOString();
      const level_rank = Math.floor(r() * 5);
      const component = components[Math.floor(r() * components.length)]!;
      const error_code = codes[Math.floor(r() * codes.length)]!;
      const row = {
        log_id: `log-${String(i).padStart(4, '0')}`,
        ts,
        level: LEVELS[level_rank]!,
        level_rank,
        component,
        error_code,
        message: `message ${i}`,
        is_mcp: component.startsWith('mcp.') ? 1 : 0,
        event_id: null,
        run_id: null,
        delivery_id: null,
        dead_letter_id: null,
        entity_id: null,
        session_id: null,
      };
      rows.push(row);
      logs.push({ ...row, seq: i + 1 });
    }
    // Through the log repository, so the hourly incident rollup is kept as the runtime keeps it.
    await store.transaction(async (trx) => {
      for (const row of rows) await store.logs.write(row, trx);
    });
  });

  const expectedGroups = (opts: { component?: string; mcpOnly?: boolean; sort: 'last_seen' | 'count' }) =>
    expectedIncidentGroups(logs, { windowStart: W_START, windowEnd: W_END, ...opts });

  // Sorting, paging, trends and states are the runtime's: packages/runtime/src/incidents/incidents.test.ts.
  for (const opts of [{}, { mcpOnly: true }, { component: 'dispatcher' }]) {
    it(`groups by (component, error_code) with hourly histograms and each group's latest five: ${JSON.stringify(opts)}`, async () => {
      const want = expectedGroups({ ...opts, sort: 'last_seen' });
      expect(want.length).toBeGreaterThan(2);
      const window = { windowStart: W_START, windowEnd: W_END, ...opts };
      const groups = await store.incidents.windowGroups({ ...window, histogramBuckets: 24 });
      const samples = await store.incidents.samples(window, groups);
      const byKey = new Map(groups.map((g) => [JSON.stringify([g.component, g.error_code]), g]));
      // These records name no cause: every group's cause key is ''.
      expect(groups.every((g) => g.cause_key === '')).toBe(true);
      expect(groups).toHaveLength(want.length);
      for (const w of want) {
        const g = byKey.get(JSON.stringify([w.component, w.error_code]))!;
        const sample = samples.get(incidentGroupKey(g)) ?? [];
        expect({ count: g.count, first_seen: g.first_seen, last_seen: g.last_seen, level_rank: g.level_rank, sample_message: sample[0]?.message, sample_log_ids: sample.map((x) => x.log_id) }).toEqual({
          count: w.count,
          first_seen: w.first_seen,
          last_seen: w.last_seen,
          level_rank: w.level_rank,
          sample_message: w.sample_message,
          sample_log_ids: w.sample_log_ids,
        });
        const hourOf = (ts: string) => Math.floor((Date.parse(ts) - Date.parse(W_START)) / 3600_000);
        const wantH = new Array(24).fill(0);
        for (const ts of w.times) wantH[hourOf(ts)]++;
        expect(g.histogram).toEqual(wantH);
      }
      const lastHour = { ...window, windowStart: new Date(Date.parse(W_END) - 3600_000).toISOString() };
      const recent = new Map((await store.incidents.groupCounts(lastHour)).map((c) => [JSON.stringify([c.component, c.error_code]), c.count]));
      for (const w of want) {
        const n = w.times.filter((ts) => ts >= lastHour.windowStart).length;
        expect(recent.get(JSON.stringify([w.component, w.error_code])) ?? 0).toBe(n);
      }
      if (opts.mcpOnly) expect(groups.every((g) => g.component.startsWith('mcp.'))).toBe(true);
    });
  }

  it('agrees with a direct count of the records over random windows, bucket counts and filters (rollups cover whole hours and minutes, the records the cut minutes)', async () => {
    const r = seededRandom(99);
    const dataStart = Date.parse(W_START) - 3 * 3600_000;
    const components = [undefined, undefined, 'dispatcher', 'mcp.payments'];
    for (let trial = 0; trial < 60; trial++) {
      // Windows from minutes to days, at any millisecond, inside, across and outside the data.
      const startMs = dataStart - 2 * 3600_000 + Math.floor(r() * 34 * 3600_000);
      const endMs = startMs + 1 + Math.floor(r() ** 2 * 36 * 3600_000);
      const windowStart = new Date(startMs).toISOString();
      const windowEnd = new Date(endMs).toISOString();
      const buckets = [0, 1, 7, 24, 30][Math.floor(r() * 5)]!;
      const component = components[Math.floor(r() * components.length)];
      const mcpOnly = r() < 0.25;
      const groups = await store.incidents.windowGroups({ windowStart, windowEnd, component, mcpOnly, histogramBuckets: buckets });

      const width = (endMs - startMs) / Math.max(1, buckets);
      const bounds = Array.from({ length: Math.max(1, buckets) - 1 }, (_, i) => new Date(Math.floor(startMs + width * (i + 1))).toISOString());
      const want = new Map<string, { count: number; first_seen: string; last_seen: string; level_rank: number; histogram: number[] }>();
      for (const l of logs) {
        if (l.level_rank < 2 || l.ts < windowStart || l.ts >= windowEnd) continue;
        if (component !== undefined && l.component !== component) continue;
        if (mcpOnly && !l.component.startsWith('mcp.')) continue;
        const k = JSON.stringify([l.component, l.error_code]);
        const g = want.get(k) ?? { count: 0, first_seen: l.ts, last_seen: l.ts, level_rank: 0, histogram: new Array<number>(buckets).fill(0) };
        g.count++;
        if (l.ts < g.first_seen) g.first_seen = l.ts;
        if (l.ts > g.last_seen) g.last_seen = l.ts;
        g.level_rank = Math.max(g.level_rank, l.level_rank);
        if (buckets > 0) g.histogram[bounds.filter((b) => b <= l.ts).length]!++;
        want.set(k, g);
      }
      const got = new Map(groups.map((i) => [JSON.stringify([i.component, i.error_code]), { count: i.count, first_seen: i.first_seen, last_seen: i.last_seen, level_rank: i.level_rank, histogram: i.histogram }]));
      expect(got, JSON.stringify({ windowStart, windowEnd, buckets, component, mcpOnly })).toEqual(want);
      // Each group's latest five: one statement per shape of window and groups, compiled once and
      // sent with this window's values, so later trials of a shape check the reuse.
      const samples = await store.incidents.samples({ windowStart, windowEnd, component, mcpOnly }, groups);
      for (const w of expectedIncidentGroups(logs, { windowStart, windowEnd, component, mcpOnly, sort: 'last_seen' })) {
        const g = groups.find((x) => x.component === w.component && x.error_code === w.error_code)!;
        expect((samples.get(incidentGroupKey(g)) ?? []).map((x) => x.log_id), JSON.stringify({ windowStart, windowEnd, component, mcpOnly, group: w.component })).toEqual(w.sample_log_ids);
      }
    }
  });

  it('rollups rebuilt from the records (migrations 005, 026 and 027, a reset) equal the ones kept record by record', async () => {
    const hours = () => databaseOf(store).selectFrom('incident_hours').selectAll().orderBy('hour').orderBy('component').orderBy('error_key').orderBy('cause_key').execute();
    const minutes = () => databaseOf(store).selectFrom('incident_minutes').selectAll().orderBy('minute').orderBy('component').orderBy('error_key').orderBy('cause_key').execute();
    const sixHours = () => databaseOf(store).selectFrom('incident_six_hours').selectAll().orderBy('block').orderBy('component').orderBy('error_key').orderBy('cause_key').execute();
    const kept = { hours: await hours(), minutes: await minutes(), sixHours: await sixHours() };
    expect(kept.hours.length).toBeGreaterThan(10);
    expect(kept.minutes.length).toBeGreaterThan(kept.hours.length);
    expect(kept.sixHours.length).toBeGreaterThan(2);
    expect(kept.sixHours.length).toBeLessThan(kept.hours.length);
    await store.logs.rebuildIncidentRollup();
    expect({ hours: await hours(), minutes: await minutes(), sixHours: await sixHours() }).toEqual(kept);
  });

  it('returns the log records of one group, latest first', async () => {
    const [group] = expectedGroups({ sort: 'count' });
    const rows = await store.incidents.logs(group!, { windowStart: W_START, windowEnd: W_END }, 500);
    expect(rows).toHaveLength(group!.count);
    expect(rows.slice(0, 5).map((r) => r.log_id)).toEqual(group!.sample_log_ids);
  });
});

describe('MailboxReadRepository', () => {
  beforeAll(async () => {
    const statuses = ['pending', 'approved', 'pending', 'rejected', 'pending', 'approved', 'approved'];
    await databaseOf(store)
      .insertInto('mailbox_items')
      .values(
        Array.from({ length: 21 }, (_, i) => ({
          mailbox_id: `mbx-${String(i).padStart(2, '0')}`,
          created_at: new Date(BASE + i * 1000).toISOString(),
          payload: '{}',
          priority: i % 3 === 0 ? 'high' : 'normal',
          source_flow: i % 2 ? 'support.refunds' : 'risk.fraud',
          status: statuses[i % statuses.length]!,
          type: i % 2 ? 'refund_approval' : 'fraud_review',
          decided_at: null,
          decision: null,
          source_entity_id: null,
          source_event_id: null,
          run_id: null,
        })),
      )
      .execute();
  });

  async function walkMailbox(filter: Parameters<Store['mailboxReads']['page']>[0], limit: number) {
    const out: { id: string; status: string }[] = [];
    let after;
    for (let i = 0; i < 100; i++) {
      const page = await store.mailboxReads.page(filter, { limit, after });
      out.push(...page.items.map((x) => ({ id: x.mailbox_id, status: x.status })));
      if (!page.next) return out;
      after = page.next;
    }
    throw new Error('walk did not end');
  }

  it('lists pending items first, then the rest, newest first within each, across pages', async () => {
    const got = await walkMailbox({}, 4);
    expect(got).toHaveLength(21);
    const firstDecided = got.findIndex((x) => x.status !== 'pending');
    expect(got.slice(0, firstDecided).every((x) => x.status === 'pending')).toBe(true);
    expect(got.slice(firstDecided).every((x) => x.status !== 'pending')).toBe(true);
    for (const part of [got.slice(0, firstDecided), got.slice(firstDecided)]) {
      expect(part.map((x) => x.id)).toEqual([...part.map((x) => x.id)].sort().reverse());
    }
  });

  it('filters by status, type, source_flow and priority', async () => {
    expect((await walkMailbox({ status: 'approved' }, 2)).every((x) => x.status === 'approved')).toBe(true);
    expect(await walkMailbox({ status: 'approved' }, 2)).toHaveLength(9);
    const typed = await walkMailbox({ type: 'refund_approval', source_flow: 'support.refunds', priority: 'high' }, 2);
    expect(typed.map((x) => x.id).sort()).toEqual(['mbx-03', 'mbx-09', 'mbx-15']);
  });
});
