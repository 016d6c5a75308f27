/**
 * Where the store writes an event.list page's records itself (repositories/event-record-json.ts,
 * SQLite), they must be the text that mapping the rows gives (records/stored-event.ts, what
 * PostgreSQL's pages and exports use), to the byte. On an engine that reads pages as rows only,
 * there is nothing to compare and the comparisons are skipped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Params } from '@switchboard/contract';
import type { BulkEvent, Store } from '@switchboard/store';
import { openTestStore } from '@switchboard/store/testing';
import { readEventList, readEventListText } from '../../src/methods/event/list';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparents = [
  `00-${TRACE}-00f067aa0ba902b7-01`,
  `000-${TRACE}-x`, // the trace id is the second part, whatever the first
  `00-${TRACE}`, // no third part
  `00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`,
  `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
  `00-${TRACE}0-00f067aa0ba902b7-01`,
  TRACE,
  '',
  '-',
  null,
];
const payloads = [
  { ticket: 'T-1', nested: { gone: null, list: [1, null, 'x'] } },
  [1, 2, 3],
  42,
  'plain text',
  null,
  { text: 'é ü 日本 😀 "quoted" \\ back\nline \u2028 sep \u0001', big: 1e21, small: 1.5e-7, neg: -0.5 },
  {},
];

function fixture(): BulkEvent[] {
  const batch: BulkEvent[] = [];
  for (let i = 0; i < 30; i++) {
    const id = `evt_${String(i).padStart(3, '0')}`;
    const at = `2026-11-01T00:00:${String(i).padStart(2, '0')}.000Z`;
    const failed = i % 3 === 0;
    const redriven = i % 6 === 0;
    batch.push({
      event: {
        event_id: id,
        event_name: i % 2 ? 'ticket.created' : 'refund.approved',
        created_at: at,
        source: i % 4 ? 'api' : '',
        payload: JSON.stringify(payloads[i % payloads.length]),
        entity_id: i % 5 ? `ticket-${i % 4}` : null,
        run_id: i % 7 ? `run_${i}` : null,
        chain_depth: i % 3,
        parent_event_id: i % 2 ? `evt_parent_${i}` : null,
        has_dead_letter: 0,
        replay_of_event_id: i % 8 === 1 ? `evt_replayed_${i}` : null,
        traceparent: traceparents[i % traceparents.length]!,
      },
      deliveries: [
        { delivery_id: `dlv_${i}_0`, run_id: null, subscriber_id: 'open-ticket', subscriber_type: 'node', status: 'delivered', attempts: 1, max_attempts: 3, next_attempt_at: at, lease_owner: null, lease_expires_at: null, last_error: null, reason_code: null, session_id: i % 2 ? `ses_${i}` : null, created_at: at, updated_at: at },
        ...(failed
          ? [
              { delivery_id: `dlv_${i}_1`, run_id: null, subscriber_id: 'pay-refund', subscriber_type: 'agent', status: 'failed', attempts: 3, max_attempts: 3, next_attempt_at: at, lease_owner: null, lease_expires_at: null, last_error: i % 2 ? '' : 'handler failed: "rate_limited"', reason_code: 'rate_limited', session_id: null, created_at: at, updated_at: at, ...(i % 9 === 3 ? { redrive_of_dead_letter_id: '' } : {}) },
              ...(redriven
                ? [{ delivery_id: `dlv_${i}_2`, run_id: null, subscriber_id: 'pay-refund', subscriber_type: 'agent', status: 'failed', attempts: 1, max_attempts: 3, next_attempt_at: at, lease_owner: null, lease_expires_at: null, last_error: 'again', reason_code: 'timeout', session_id: null, created_at: `2026-11-01T00:01:${String(i).padStart(2, '0')}.000Z`, updated_at: at, redrive_of_dead_letter_id: `dl_${i}_a` }]
                : []),
            ]
          : []),
      ],
      dead_letters: failed
        ? [
            {
              dead_letter_id: `dl_${i}_a`, delivery_id: `dlv_${i}_1`, run_id: null, subscriber_id: 'pay-refund', chain_depth: 0, created_at: at, failure_type: 'handler_error', retry_count: 2, error_message: 'handler failed: rate_limited', handler_node: i % 2 ? null : 'pay-refund', reason_code: 'rate_limited',
              ...(redriven ? { redriven_at: at, redriven_by_token_id: i % 4 ? 'tok_1' : null, redrive_operation_id: `op_${i}`, redrive_delivery_id: `dlv_${i}_2` } : i % 9 === 3 ? { redriven_at: at, redrive_operation_id: '', redrive_delivery_id: `dlv_${i}_2` } : {}),
            },
            ...(redriven
              ? [{ dead_letter_id: `dl_${i}_b`, delivery_id: `dlv_${i}_2`, run_id: null, subscriber_id: null, chain_depth: 1, created_at: `2026-11-01T00:02:${String(i).padStart(2, '0')}.000Z`, failure_type: 'timeout', retry_count: 0, error_message: null, handler_node: null, reason_code: 'timeout' }]
              : []),
            ...(i % 9 === 0 ? [{ dead_letter_id: `dl_${i}_c`, delivery_id: null, run_id: null, subscriber_id: null, chain_depth: 0, created_at: at, failure_type: 'no_subscriber', retry_count: 0, error_message: 'no one took it', handler_node: null, reason_code: null }] : []),
          ]
        : [],
    });
  }
  return batch;
}

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-record-json-'));
  store = await openTestStore(dir);
  await store.events.bulkInsert(fixture());
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every page of `params` both ways, each following the written text's cursor (the mapped page must carry the same one). */
async function bothWays(params: Params<'event.list'>): Promise<{ built: string[]; mapped: string[] }> {
  const built: string[] = [];
  const mapped: string[] = [];
  for (let cursor: string | undefined, pages = 0; pages < 50; pages++) {
    const text = await readEventListText(store, { ...params, ...(cursor ? { cursor } : {}) });
    const parsed = JSON.parse(text) as { next_cursor?: string };
    built.push(text);
    mapped.push(JSON.stringify(await readEventList(store, { ...params, ...(cursor ? { cursor } : {}) })));
    cursor = parsed.next_cursor;
    if (!cursor) break;
  }
  return { built, mapped };
}

describe('event.list records written by the database', () => {
  const cases: [string, Params<'event.list'>][] = [
    ['every event, 4 a page', { limit: 4 }],
    ['every event, one page', { limit: 100 }],
    ['with dead letters', { filter: { has_dead_letter: true }, limit: 3 }],
    ['by subscriber', { filter: { subscriber_id: 'pay-refund' }, limit: 2 }],
    ['by reason code', { filter: { reason_code: 'timeout' }, limit: 2 }],
    ['by payload, unindexed', { filter: { payload: [{ path: 'ticket', op: 'eq', value: 'T-1' }] }, limit: 2 }],
    ['in a time range', { since: '2026-11-01T00:00:05.000Z', until: '2026-11-01T00:00:20.000Z', limit: 5 }],
  ];
  for (const [name, params] of cases) {
    it(`answers the mapped records' text, byte for byte: ${name}`, async (ctx) => {
      if (!store.events.recordsAsJson) ctx.skip();
      const { built, mapped } = await bothWays(params);
      expect(built.flatMap((text) => (JSON.parse(text) as { events: unknown[] }).events).length).toBeGreaterThan(1);
      expect(built).toEqual(mapped);
    });
  }

  it('covers what the mapping omits or derives', async (ctx) => {
    if (!store.events.recordsAsJson) ctx.skip();
    const { events } = JSON.parse(await readEventListText(store, { limit: 100 })) as { events: Record<string, unknown>[] };
    expect(events).toHaveLength(30);
    const traceIds = new Set(events.map((e) => e.trace_id));
    expect(traceIds).toEqual(new Set([TRACE, undefined]));
    expect(events.filter((e) => e.trace_id === TRACE)).toHaveLength(9);
    const deadLetters = events.flatMap((e) => e.dead_letters as Record<string, unknown>[]);
    expect(deadLetters.some((l) => (l.redrive as { actor_token_id?: string } | undefined)?.actor_token_id === 'unknown')).toBe(true);
    expect(deadLetters.some((l) => l.redrive_of_dead_letter_id !== undefined)).toBe(true);
    expect(deadLetters.filter((l) => l.dead_letter_id === 'dl_3_a')[0]).not.toHaveProperty('redrive');
    expect(events.map((e) => e.payload)).toContainEqual({ value: null });
    expect(events.map((e) => e.payload)).toContainEqual({ value: [1, 2, 3] });
  });
});
