import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import { RpcError } from '@switchboard/contract';
import { bootFixture, count, minimalBundle, type Fixture } from './testing/runtime-fixture';
import { Dispatcher, subscriberKey } from './dispatcher';
import { HandlerFailure } from './handler-failure';
import type { SubscriberHandler } from './handler';
import { runUntilIdle } from './testing/run-until-idle';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function flakyBundle(failureRate: number, maxAttempts = 3) {
  return minimalBundle({
    runtime: { max_attempts: maxAttempts, backoff_ms: 1, max_chain_depth: 4, lease_ms: 1000, handler_timeout_ms: 500 },
    events: {
      'payment.due': {
        payload_schema: { type: 'object', required: ['invoice'], properties: { invoice: { type: 'string' }, amount: { type: 'number' } } },
        subscribers: [{ type: 'node', id: 'charge' }],
      },
      'payment.done': { payload_schema: { type: 'object' }, subscribers: [] },
    },
    nodes: {
      charge: { kind: 'tool_call', tool_server: 'mcp.payments', tool: 'refund', arguments: { amount: '$.amount' }, emit_on_success: 'payment.done' },
    },
    entity_types: {},
    tool_servers: { 'mcp.payments': { protocol: 'mcp', failure_rate: failureRate, tools: ['refund'] } },
  });
}

describe('publish and dispatch', () => {
  it('stores the event, one pending delivery per subscriber, then delivers and settles the run', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    const res = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'o-1', amount: 40 } });
    expect(res.status).toBe('running');
    const before = await databaseOf(store).selectFrom('deliveries').selectAll().execute();
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ status: 'pending', subscriber_id: 'track-order', subscriber_type: 'node', run_id: res.run_id, event_id: res.event_id });
    const ev = await databaseOf(store).selectFrom('events').selectAll().where('event_id', '=', res.event_id).executeTakeFirstOrThrow();
    expect(before[0]!.event_seq).toBe(ev.seq);
    expect(before[0]!.event_created_at).toBe(ev.created_at);

    await runUntilIdle(runtime);
    const after = await databaseOf(store).selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'delivered', attempts: 1, lease_owner: null });
    const run = await databaseOf(store).selectFrom('runs').selectAll().where('run_id', '=', res.run_id).executeTakeFirstOrThrow();
    expect(run.status).toBe('completed');
    expect(run.settled_at).not.toBeNull();
    const entity = await databaseOf(store).selectFrom('entities').selectAll().executeTakeFirstOrThrow();
    expect(entity).toMatchObject({ entity_id: 'order-o-1', current_state: 'new', revision: 1, run_id: res.run_id });
    expect(JSON.parse(entity.fields)).toEqual({ amount: 40 });
    expect(JSON.parse(entity.accumulated)).toEqual({ seen: 1 });
  });

  it('settles runs left running with nothing open (a crash after the commit), a window of runs per sweep, then from the start again', async () => {
    fx = await bootFixture(minimalBundle(), { dispatcher: { quietSweepWindow: 2 } });
    const { runtime, store } = fx;
    const db = databaseOf(store);
    const done = [];
    for (const order of ['o-1', 'o-2', 'o-3']) done.push((await runtime.publish({ event_name: 'order.placed', payload: { order_id: order } })).run_id);
    await runUntilIdle(runtime);
    // As if each completion's process died after its commit and before the run was settled
    // (created a second apart, so the sweep's order is theirs: runs of one millisecond go by id).
    for (const [i, runId] of done.entries()) {
      await db.updateTable('runs').set({ status: 'running', settled_at: null, created_at: `2026-01-01T00:00:0${i}.000Z` }).where('run_id', '=', runId).execute();
    }
    const open = (await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'o-4' } })).run_id;
    const statusOf = async (runId: string) => (await db.selectFrom('runs').select('status').where('run_id', '=', runId).executeTakeFirstOrThrow()).status;

    expect(await runtime.dispatcher.settleQuietRuns()).toBe(2);
    expect([await statusOf(done[0]!), await statusOf(done[1]!), await statusOf(done[2]!)]).toEqual(['completed', 'completed', 'running']);
    expect(await runtime.dispatcher.settleQuietRuns()).toBe(1);
    expect(await statusOf(done[2]!)).toBe('completed');
    expect(await runtime.dispatcher.settleQuietRuns()).toBe(0);
    expect(await statusOf(open)).toBe('running');

    // Walked to the end: the next sweep starts over and finds the open run quiet once it is done.
    await runUntilIdle(runtime);
    await db.updateTable('runs').set({ status: 'running', settled_at: null }).where('run_id', '=', open).execute();
    expect(await runtime.dispatcher.settleQuietRuns()).toBe(1);
    expect(await statusOf(open)).toBe('completed');
  });

  it('rejects unknown events, bad payloads and foreign bundle fingerprints before storing anything', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    await expect(runtime.publish({ event_name: 'nope' })).rejects.toMatchObject({ code: 'UNKNOWN_EVENT', details: { event_name: 'nope' } });
    const bad = await runtime.publish({ event_name: 'order.placed', payload: { amount: 'x' } }).catch((e: RpcError) => e);
    expect(bad).toBeInstanceOf(RpcError);
    expect((bad as RpcError).code).toBe('INVALID_PARAMS');
    expect((bad as RpcError).details.issues).toEqual(
      expect.arrayContaining([
        { path: 'payload.order_id', message: 'is required' },
        { path: 'payload.amount', message: 'expected number, got string' },
      ]),
    );
    await expect(runtime.publish({ event_name: 'order.placed', payload: { order_id: 'a' }, bundle_ref: { fingerprint: 'sha256:00' } })).rejects.toMatchObject({
      code: 'BUNDLE_MISMATCH',
      details: { expected: runtime.bundle.fingerprint, got: 'sha256:00' },
    });
    const ok = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'a' }, bundle_ref: { fingerprint: runtime.bundle.fingerprint } });
    expect(ok.status).toBe('running');
    expect(await count(store, 'events')).toBe(1);
    expect(await count(store, 'runs')).toBe(1);
  });

  it('retries with backoff and dead-letters after the last attempt, with every field filled', async () => {
    fx = await bootFixture(flakyBundle(1));
    const { runtime, store } = fx;
    const res = await runtime.publish({ event_name: 'payment.due', payload: { invoice: 'inv-9', amount: 12 } });
    await runUntilIdle(runtime);
    const d = await databaseOf(store).selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
    expect(d).toMatchObject({ status: 'failed', attempts: 3, reason_code: 'tool_error' });
    expect(d.last_error).toContain('mcp.payments refund');
    const dls = await databaseOf(store).selectFrom('dead_letters').selectAll().execute();
    expect(dls).toHaveLength(1);
    const ev = await databaseOf(store).selectFrom('events').selectAll().where('event_id', '=', res.event_id).executeTakeFirstOrThrow();
    expect(dls[0]).toMatchObject({
      event_id: res.event_id,
      event_seq: ev.seq,
      event_created_at: ev.created_at,
      delivery_id: d.delivery_id,
      run_id: res.run_id,
      subscriber_id: 'charge',
      handler_node: 'charge',
      failure_type: 'handler_error',
      retry_count: 2,
      chain_depth: 0,
      reason_code: 'tool_error',
    });
    expect(dls[0]!.error_message).toBeTruthy();
    expect(ev.has_dead_letter).toBe(1);
    const run = await databaseOf(store).selectFrom('runs').selectAll().executeTakeFirstOrThrow();
    expect(run.status).toBe('failed');
    const logs = await databaseOf(store).selectFrom('logs').selectAll().where('level_rank', '>=', 2).execute();
    expect(logs.filter((l) => l.component === 'dispatcher' && l.error_code === 'DELIVERY_RETRY' && l.level === 'warn')).toHaveLength(2);
    expect(logs.filter((l) => l.component === 'dispatcher' && l.error_code === 'DEAD_LETTER' && l.level === 'error' && l.dead_letter_id === dls[0]!.dead_letter_id)).toHaveLength(1);
    const mcp = logs.filter((l) => l.component === 'mcp.payments');
    expect(mcp).toHaveLength(3);
    expect(mcp.every((l) => l.is_mcp === 1 && l.error_code === 'MCP_TOOL_ERROR')).toBe(true);
    // No success event was emitted.
    expect(await count(store, 'events')).toBe(1);
  });

  it('delivers when a flaky tool succeeds on retry and emits the success event once', async () => {
    fx = await bootFixture(flakyBundle(0));
    const { runtime, store } = fx;
    await runtime.publish({ event_name: 'payment.due', payload: { invoice: 'inv-1', amount: 30 } });
    await runUntilIdle(runtime);
    const events = await databaseOf(store).selectFrom('events').selectAll().orderBy('seq').execute();
    expect(events.map((e) => e.event_name)).toEqual(['payment.due', 'payment.done']);
    expect(events[1]).toMatchObject({ chain_depth: 1, parent_event_id: events[0]!.event_id, run_id: events[0]!.run_id, source: 'node:charge' });
    expect(JSON.parse(events[1]!.payload).result).toMatchObject({ status: 'succeeded', amount: 30 });
  });

  it('bounds chain depth: the emit past max_chain_depth dead-letters as chain_depth_exceeded without retries', async () => {
    fx = await bootFixture(
      minimalBundle({
        runtime: { max_attempts: 3, backoff_ms: 1, max_chain_depth: 3, lease_ms: 1000, handler_timeout_ms: 500 },
        events: { ping: { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'echo' }] } },
        nodes: { echo: { kind: 'transform', emit: 'ping', map: {} } },
        entity_types: {},
      }),
    );
    const { runtime, store } = fx;
    await runtime.publish({ event_name: 'ping', payload: { n: 1 } });
    await runUntilIdle(runtime);
    const events = await databaseOf(store).selectFrom('events').select(['chain_depth', 'has_dead_letter']).orderBy('seq').execute();
    expect(events.map((e) => e.chain_depth)).toEqual([0, 1, 2, 3]);
    const dls = await databaseOf(store).selectFrom('dead_letters').selectAll().execute();
    expect(dls).toHaveLength(1);
    expect(dls[0]).toMatchObject({ failure_type: 'chain_depth_exceeded', reason_code: 'chain_depth_exceeded', chain_depth: 3, retry_count: 0 });
    expect(events[3]!.has_dead_letter).toBe(1);
  });
});

describe('handler timeout', () => {
  it('aborts the signal of a handler that outlives handler_timeout_ms with the timeout, and records a timeout', async () => {
    fx = await bootFixture(flakyBundle(0, 1));
    const { runtime, store } = fx;
    const reasons: unknown[] = [];
    const waitsForAbort: SubscriberHandler = {
      handle: ({ signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          }),
        ),
    };
    const dispatcher = new Dispatcher(runtime.services, new Map([[subscriberKey('node', 'charge'), waitsForAbort]]));
    await runtime.publish({ event_name: 'payment.due', payload: { invoice: 'i-1', amount: 5 } });
    await runUntilIdle({ dispatcher, services: runtime.services });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(HandlerFailure);
    expect(reasons[0]).toMatchObject({ reasonCode: 'handler_timeout' });
    const dl = await databaseOf(store).selectFrom('dead_letters').selectAll().executeTakeFirstOrThrow();
    expect(dl).toMatchObject({ failure_type: 'timeout', reason_code: 'handler_timeout' });
  });
});
