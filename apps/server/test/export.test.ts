/**
 * GET /v1/export/<list>: every list exported in both formats holds what its list method returns for
 * the same params, row for row; auth, scope and params are refused like the list's, before a byte
 * is streamed; and a client that goes away stops the walk.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ParamsInput, Result } from '@switchboard/contract';
import type { BulkEvent } from '@switchboard/store';
import type { TestServer } from './harness';
import { expectRpcError, ok, walk } from './rpc-helpers';
import { withSeededServer } from './methods/method-servers';
import { addUserWithToken } from './methods/people-fixtures';

let server: TestServer;
withSeededServer(12, (s) => (server = s));

const BULK = 1_150;
const BIG = 1_500;
const BIG_PAYLOAD = 'x'.repeat(16_000);
const REASONS = ['tool_error', 'timeout'];

function bulkEvent(i: number, name: string, payload: Record<string, unknown>): BulkEvent {
  const created_at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const event_id = `evt_${name}_${String(i).padStart(5, '0')}`;
  const failing = name === 'bulk.order' && i % 7 === 0;
  const reason_code = REASONS[i % 2]!;
  const subscriber_id = i % 3 === 0 ? 'pay-refund' : 'open-ticket';
  return {
    event: { event_id, event_name: name, created_at, source: 'test', payload: JSON.stringify(payload), entity_id: `order-${i % 40}`, run_id: `run_${name}_${i}`, chain_depth: 0, parent_event_id: null, has_dead_letter: 0 },
    deliveries: [
      {
        delivery_id: `dlv_${event_id}`,
        run_id: `run_${name}_${i}`,
        subscriber_id,
        subscriber_type: 'node',
        status: failing ? 'failed' : 'delivered',
        attempts: failing ? 3 : 1,
        max_attempts: 3,
        next_attempt_at: created_at,
        lease_owner: null,
        lease_expires_at: null,
        last_error: failing ? '=HYPERLINK("http://evil")' : null,
        reason_code: failing ? reason_code : null,
        session_id: null,
        created_at,
        updated_at: created_at,
      },
    ],
    dead_letters: failing
      ? [
          {
            dead_letter_id: `dl_${event_id}`,
            delivery_id: `dlv_${event_id}`,
            run_id: `run_${name}_${i}`,
            subscriber_id,
            chain_depth: 0,
            created_at,
            failure_type: 'handler_error',
            retry_count: 2,
            error_message: '=HYPERLINK("http://evil")',
            handler_node: subscriber_id,
            reason_code,
          },
        ]
      : [],
  };
}

beforeAll(async () => {
  const batch: BulkEvent[] = [];
  for (let i = 0; i < BULK; i++) batch.push(bulkEvent(i, 'bulk.order', { order_id: `ORD-${i}`, note: i % 5 === 0 ? '-starts, "quoted", and\nnew line' : 'plain' }));
  await server.store.events.bulkInsert(batch);
  const big: BulkEvent[] = [];
  for (let i = 0; i < BIG; i++) big.push(bulkEvent(i, 'big.blob', { blob: BIG_PAYLOAD }));
  for (let i = 0; i < big.length; i += 250) await server.store.events.bulkInsert(big.slice(i, i + 250));
}, 120_000);

/** audit.list has no place in the shared walk (its records are `items` keyed by seq): its pages, walked here. */
async function walkAudit(params: ParamsInput<'audit.list'>): Promise<{ items: Result<'audit.list'>['items'] }> {
  const items: Result<'audit.list'>['items'] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(server, 'audit.list', { ...params, ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return { items };
}

function exportUrl(list: string, params: unknown, format = 'jsonl'): string {
  return `${server.url}/v1/export/${list}?format=${format}&params=${encodeURIComponent(JSON.stringify(params))}`;
}

async function download(list: string, params: unknown, format = 'jsonl', token = server.token): Promise<{ res: Response; text: string }> {
  const res = await fetch(exportUrl(list, params, format), { headers: { authorization: `Bearer ${token}` } });
  return { res, text: await res.text() };
}

async function jsonl(list: string, params: unknown): Promise<Record<string, unknown>[]> {
  const { res, text } = await download(list, params);
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
  expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="switchboard-${list}-[0-9TZ-]+\\.jsonl"$`));
  expect(text === '' || text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** RFC 4180 as csv-stringify writes it: quoted cells may hold commas, doubled quotes and newlines. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

async function csv(list: string, params: unknown): Promise<Record<string, string>[]> {
  const { res, text } = await download(list, params, 'csv');
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toMatch(/\.csv"$/);
  const [header, ...rows] = parseCsv(text);
  expect(header, 'a header line even for an empty export').toBeDefined();
  for (const r of rows) expect(r).toHaveLength(header!.length);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

describe('event export', () => {
  it('holds, in both formats, exactly the events event.list pages return for the same filter', async () => {
    const params = { filter: { event_name_prefix: 'bulk.', entity_id: 'order-7' }, since: '2026-01-01T00:01:00.000Z' };
    const listed = (await walk(server, 'event.list', { ...params, limit: 7 })).items;
    expect(listed.length).toBeGreaterThan(20);
    expect(await jsonl('events', params)).toEqual(listed);

    const rows = await csv('events', params);
    expect(rows.map((r) => r.event_id)).toEqual(listed.map((e) => e.event_id));
    rows.forEach((r, i) => {
      const e = listed[i]!;
      expect(r).toMatchObject({ event_name: e.event_name, created_at: e.created_at, entity_id: e.entity_id, run_id: e.run_id, delivery_count: String(e.deliveries.length), dead_letter_count: String(e.dead_letters.length) });
      expect(JSON.parse(r.payload!)).toEqual(e.payload);
      expect(JSON.parse(r.deliveries!)).toEqual(e.deliveries);
      expect(JSON.parse(r.dead_letters!)).toEqual(e.dead_letters);
    });
  });

  it('crosses its page boundary without losing or repeating a row', async () => {
    const params = { filter: { event_name: 'bulk.order' } };
    const exported = await jsonl('events', params);
    expect(exported).toHaveLength(BULK);
    expect(new Set(exported.map((e) => e.event_id)).size).toBe(BULK);
    expect(exported).toEqual((await walk(server, 'event.list', { ...params, limit: 500 })).items);
    const rows = await csv('events', params);
    expect(rows.map((r) => r.event_id)).toEqual(exported.map((e) => e.event_id));
    // Text with commas, quotes and line breaks survives the CSV round trip.
    expect(rows.map((r) => JSON.parse(r.payload!))).toEqual(exported.map((e) => e.payload));
  });

  it('writes only a header line for a filter that matches nothing', async () => {
    const { res, text } = await download('events', { filter: { entity_id: 'nobody' } }, 'csv');
    expect(res.status).toBe(200);
    expect(text.split('\n')[0]).toMatch(/^event_id,event_name,created_at,/);
    expect(await jsonl('events', { filter: { entity_id: 'nobody' } })).toEqual([]);
  });
});

describe('dead-letter export', () => {
  it('has one row per dead letter of the events the dead-letter list shows, the filters applied to the dead letter itself', async () => {
    const filter = { event_name: 'bulk.order', reason_code: 'timeout', subscriber_id: 'pay-refund' };
    const events = (await walk(server, 'event.list', { filter: { ...filter, has_dead_letter: true }, limit: 100 })).items;
    const expected = events.flatMap((e) => e.dead_letters.filter((l) => l.reason_code === 'timeout' && l.subscriber_id === 'pay-refund').map((l) => ({ ...l, event_id: e.event_id })));
    expect(expected.length).toBeGreaterThan(5);
    const rows = await jsonl('dead-letters', { filter });
    expect(rows.map((r) => [r.dead_letter_id, (r.event as { event_id: string }).event_id])).toEqual(expected.map((l) => [l.dead_letter_id, l.event_id]));
    const cells = await csv('dead-letters', { filter });
    expect(cells.map((r) => r.dead_letter_id)).toEqual(expected.map((l) => l.dead_letter_id));
    expect(new Set(cells.map((r) => `${r.reason_code}/${r.subscriber_id}`))).toEqual(new Set(['timeout/pay-refund']));
    // A cell a spreadsheet would run as a formula is written as text.
    expect(cells[0]!.error_message).toBe(`'=HYPERLINK("http://evil")`);
    expect(rows[0]!.error_message, 'JSON Lines carries the text as it is').toBe('=HYPERLINK("http://evil")');
  });
});

describe('mailbox export', () => {
  it('holds the items mailbox.list shows with their decision snapshots and history', async () => {
    const params = { filter: { status: 'approved' as const } };
    const listed = (await walk(server, 'mailbox.list', { ...params, limit: 3 })).items;
    expect(listed.length).toBeGreaterThan(0);
    const rows = await jsonl('mailbox', params);
    expect(rows.map((r) => r.mailbox_id)).toEqual(listed.map((i) => i.mailbox_id));
    for (const [i, row] of rows.entries()) {
      const { item, history, decided_sheet } = await ok(server, 'mailbox.get', { mailbox_id: listed[i]!.mailbox_id });
      expect(row).toMatchObject(item);
      expect(row.history).toEqual(history);
      expect(row.decided_sheet).toEqual(decided_sheet);
    }
    const cells = await csv('mailbox', params);
    expect(cells.map((r) => [r.mailbox_id, r.status, r.decision])).toEqual(listed.map((i) => [i.mailbox_id, 'approved', 'approved']));
    expect(cells.every((r) => r.decided_by_token_id !== '' && JSON.parse(r.history!).length >= 2)).toBe(true);
  });
});

describe('incident and audit exports', () => {
  it('holds the incidents runtime.incidents lists for the same params', async () => {
    const params = { since_hours: 24 * 90, sort: 'count' as const };
    const listed = (await walk(server, 'runtime.incidents', { ...params, limit: 2 })).items;
    expect(listed.length).toBeGreaterThan(0);
    const rows = await jsonl('incidents', params);
    expect(rows.map((r) => [r.incident_id, r.count])).toEqual(listed.map((i) => [i.incident_id, i.count]));
    const cells = await csv('incidents', params);
    expect(cells.map((r) => [r.incident_id, Number(r.count)])).toEqual(listed.map((i) => [i.incident_id, i.count]));
  });

  it('holds the audit records audit.list shows, and an export is itself on the audit trail', async () => {
    const params = { method: 'event.publish' };
    const before = (await walkAudit({ method: 'export.audit', limit: 500 })).items.length;
    const listed = (await walkAudit({ ...params, limit: 4 })).items;
    expect(await jsonl('audit', params)).toEqual(listed);
    const cells = await csv('audit', params);
    expect(cells.map((r) => Number(r.seq))).toEqual(listed.map((r) => r.seq));
    const recorded = (await walkAudit({ method: 'export.audit', limit: 500 })).items;
    expect(recorded).toHaveLength(before + 2);
    expect(recorded[0]).toMatchObject({ method: 'export.audit', outcome: 'ok', channel: 'api' });
    expect(recorded[0]!.params_summary).toEqual({ format: 'csv', method: 'event.publish' });
    const byEntity = (await walkAudit({ method: 'export.events', target_id: 'order-7', limit: 500 })).items;
    expect(byEntity[0]!.params_summary, 'a filter is kept member by member').toMatchObject({ format: 'csv', entity_id: 'order-7', event_name_prefix: 'bulk.' });
  });
});

describe('refusals', () => {
  it('refuses a caller without a token or without the list scope, before streaming anything', async () => {
    const anonymous = await fetch(exportUrl('events', {}));
    expect(anonymous.status).toBe(401);
    expectRpcError(await anonymous.json(), 'UNAUTHENTICATED');

    const readOnly = await addUserWithToken(server, 'viewer', ['read']);
    const audit = await download('audit', {}, 'jsonl', readOnly.secret);
    expect(audit.res.status).toBe(403);
    expectRpcError(JSON.parse(audit.text), 'FORBIDDEN');
    expect(JSON.parse(audit.text).error.data.details).toMatchObject({ required_scope: 'audit:read' });
    expect((await download('events', { filter: { event_name: 'bulk.order' } }, 'jsonl', readOnly.secret)).res.status).toBe(200);

    const heartbeatOnly = await addUserWithToken(server, 'viewer', ['heartbeat']);
    const events = await download('events', {}, 'csv', heartbeatOnly.secret);
    expect(events.res.status).toBe(403);
    expectRpcError(JSON.parse(events.text), 'FORBIDDEN');
    const refusals = (await walkAudit({ method: 'export.events', outcome: 'FORBIDDEN', limit: 500 })).items;
    expect(refusals.length).toBeGreaterThanOrEqual(1);
  });

  it('refuses params the list method would refuse, and what is not a list or a format, with a JSON-RPC error body', async () => {
    const cases: [string, string, number, string, string | undefined][] = [
      ['events', `format=xml&params=${encodeURIComponent('{}')}`, 400, 'INVALID_PARAMS', 'format'],
      ['events', `format=csv&params=${encodeURIComponent('{filter:')}`, 400, 'INVALID_PARAMS', 'params'],
      ['events', `format=csv&params=${encodeURIComponent('[]')}`, 400, 'INVALID_PARAMS', ''],
      ['events', `format=csv&params=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`, 400, 'INVALID_PARAMS', 'limit'],
      ['events', `format=csv&params=${encodeURIComponent(JSON.stringify({ cursor: 'abc' }))}`, 400, 'INVALID_PARAMS', 'cursor'],
      ['events', `format=csv&params=${encodeURIComponent(JSON.stringify({ filter: { colour: 'red' } }))}`, 400, 'INVALID_PARAMS', 'filter.colour'],
      ['events', `format=csv&params=${encodeURIComponent(JSON.stringify({ since: 'yesterday' }))}`, 400, 'INVALID_PARAMS', 'since'],
      ['events', `format=csv&params=${encodeURIComponent(JSON.stringify({ filter: { entity_id: 'a\u0000b' } }))}`, 400, 'INVALID_PARAMS', 'filter.entity_id'],
      ['mailbox', `params=${encodeURIComponent(JSON.stringify({ filter: { status: 'lost' } }))}`, 400, 'INVALID_PARAMS', 'filter.status'],
      ['incidents', `params=${encodeURIComponent(JSON.stringify({ since_hours: 0 }))}`, 400, 'INVALID_PARAMS', 'since_hours'],
      ['audit', `params=${encodeURIComponent(JSON.stringify({ actor: 'x'.repeat(101) }))}`, 400, 'INVALID_PARAMS', 'actor'],
      ['events', `params=${encodeURIComponent(JSON.stringify({ filter: { entity_id: 'x'.repeat(5000) } }))}`, 400, 'INVALID_PARAMS', 'params'],
      ['tokens', 'params=%7B%7D', 404, 'NOT_FOUND', undefined],
    ];
    for (const [list, query, status, code, path] of cases) {
      const res = await fetch(`${server.url}/v1/export/${list}?${query}`, { headers: { authorization: `Bearer ${server.token}` } });
      const body = await res.json();
      expect(res.status, `${list}?${query.slice(0, 80)}`).toBe(status);
      expect(res.headers.get('content-disposition')).toBeNull();
      expectRpcError(body, code as 'INVALID_PARAMS');
      const issues = (body.error.data.details.issues ?? []) as { path: string }[];
      if (path !== undefined) expect(issues.map((i) => i.path), query.slice(0, 80)).toContain(path);
    }
  });
});

describe('a client that goes away', () => {
  it('stops the walk: no page is read after the client closed the connection', async () => {
    const params = { filter: { event_name: 'big.blob' } };
    const controller = new AbortController();
    const res = await fetch(exportUrl('events', params), { headers: { authorization: `Bearer ${server.token}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    controller.abort();
    const ended = await vi.waitFor(
      () => {
        const line = server.logs.find((l) => l.msg === 'export ended' && l.list === 'events' && (l.outcome === 'client_closed' || (l.rows as number) === BIG));
        if (!line) throw new Error('the export has not ended yet');
        return line;
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(ended.outcome).toBe('client_closed');
    // The export is 24 MB in 3 pages; the client took a part of the first before it left.
    expect(ended.rows as number).toBeLessThan(BIG);
    expect(ended.pages as number).toBeLessThan(Math.ceil(BIG / 500));
    // The server is still answering.
    expect((await ok(server, 'health.ping')).ok).toBe(true);
  });
});
