import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import { RpcError } from '@switchboard/contract';
import { bootFixture, count, minimalBundle, writeBundle, type Fixture } from './testing/runtime-fixture';
import { Runtime } from './runtime';
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

  it('the background loop dispatches a publish promptly and stop() waits for in-flight handlers', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    runtime.start();
    const started = Date.now();
    await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'o-2' } });
    await runtime.waitForIdle(5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await databaseOf(store).selectFrom('deliveries').select('status').executeTakeFirstOrThrow()).status).toBe('delivered');
    await runtime.stop();
    expect(runtime.dispatcher.inFlightCount).toBe(0);
  });

  it('pauseClaims stops claiming; cancelPending cancels unstarted deliveries of the given runs and settles them', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    runtime.dispatcher.pauseClaims();
    runtime.start();
    const r1 = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'a' } });
    const r2 = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'b' } });
    // Two full turns of the claim loop after both publishes: each had its chance to claim, and did not.
    const turns = runtime.dispatcher.turns;
    while (runtime.dispatcher.turns < turns + 2) await new Promise((r) => setTimeout(r, 5));
    expect((await databaseOf(store).selectFrom('deliveries').select('status').execute()).map((d) => d.status)).toEqual(['pending', 'pending']);
    expect(await runtime.cancelPending([r1.run_id])).toEqual({ cancelled_deliveries: 1, cancelled_runs: 1 });
    runtime.dispatcher.resumeClaims();
    await runtime.waitForIdle(5_000);
    const runs = await databaseOf(store).selectFrom('runs').select(['run_id', 'status']).execute();
    expect(Object.fromEntries(runs.map((r) => [r.run_id, r.status]))).toEqual({ [r1.run_id]: 'cancelled', [r2.run_id]: 'completed' });
  });

  it('completes what finishes together in one batch; a failing one is completed alone and the others still commit once', async () => {
    fx = await bootFixture(
      minimalBundle({
        events: {
          job: { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'relay' }, { type: 'node', id: 'note' }] },
          'job.relayed': { payload_schema: { type: 'object', properties: { n: { type: 'number' } } }, subscribers: [{ type: 'node', id: 'finish' }] },
          'job.noted': { payload_schema: { type: 'object' }, subscribers: [] },
          'job.finished': { payload_schema: { type: 'object' }, subscribers: [] },
        },
        nodes: {
          relay: { kind: 'transform', emit: 'job.relayed' },
          note: { kind: 'transform', emit: 'job.noted' },
          finish: { kind: 'transform', emit: 'job.finished' },
        },
        entity_types: {},
      }),
    );
    const { runtime, store } = fx;
    // Twenty jobs that all succeed: 60 outcomes, recorded in far fewer commit members than one each.
    for (let n = 0; n < 20; n++) await runtime.publish({ event_name: 'job', payload: { n } });
    const membersBefore = store.groupCommit.stats.members;
    runtime.start();
    await runtime.waitForIdle(10_000);
    expect(store.groupCommit.stats.members - membersBefore).toBeLessThan(30);
    await runtime.dispatcher.stop();
    await databaseOf(store).deleteFrom('deliveries').execute();
    await databaseOf(store).deleteFrom('events').execute();
    await databaseOf(store).deleteFrom('runs').execute();

    const runs: string[] = [];
    // Job 7's relay emits a payload job.relayed refuses: that handler fails for good, in the first batch.
    for (let n = 0; n < 20; n++) runs.push((await runtime.publish({ event_name: 'job', payload: { n: n === 7 ? 'seven' : n } })).run_id);
    runtime.dispatcher.start();
    await runtime.waitForIdle(10_000);

    const deliveries = await databaseOf(store).selectFrom('deliveries').select(['subscriber_id', 'status', 'attempts']).execute();
    expect(deliveries).toHaveLength(20 + 20 + 19);
    expect(deliveries.filter((d) => d.status !== 'delivered')).toEqual([{ subscriber_id: 'relay', status: 'failed', attempts: 1 }]);
    // Every emitted event once, however often its batch ran.
    const events = await databaseOf(store).selectFrom('events').select(['event_name', 'parent_event_id']).execute();
    const counts: Record<string, number> = {};
    for (const e of events) counts[e.event_name] = (counts[e.event_name] ?? 0) + 1;
    expect(counts).toEqual({ job: 20, 'job.relayed': 19, 'job.noted': 20, 'job.finished': 19 });
    const emitted = events.filter((e) => e.parent_event_id !== null);
    expect(new Set(emitted.map((e) => `${e.event_name}<${e.parent_event_id}`)).size).toBe(emitted.length);
    const dls = await databaseOf(store).selectFrom('dead_letters').select(['run_id', 'reason_code']).execute();
    expect(dls).toEqual([{ run_id: runs[7], reason_code: 'emit_payload_invalid' }]);
    const statuses = await databaseOf(store).selectFrom('runs').select(['run_id', 'status']).execute();
    expect(Object.fromEntries(statuses.map((r) => [r.run_id, r.status]))).toEqual(Object.fromEntries(runs.map((id, n) => [id, n === 7 ? 'failed' : 'completed'])));
  });

  it('a publish is written leased to its own running dispatcher while it has room, and runs without a claim; the rest wait for claims', async () => {
    fx = await bootFixture(minimalBundle(), { dispatcher: { concurrency: 1 } });
    const { runtime, store } = fx;
    const claimedIds: string[] = [];
    const claim = store.deliveries.claimDueUnlessLocked.bind(store.deliveries);
    store.deliveries.claimDueUnlessLocked = async (...args) => {
      const result = await claim(...args);
      claimedIds.push(...result.claimed.map((d) => d.delivery_id));
      return result;
    };
    // Stopped: nothing is leased at write.
    const early = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'early' } });
    expect(await databaseOf(store).selectFrom('deliveries').select(['status', 'attempts', 'lease_owner']).where('event_id', '=', early.event_id).executeTakeFirstOrThrow()).toEqual({
      status: 'pending',
      attempts: 0,
      lease_owner: null,
    });
    runtime.start();
    await runtime.waitForIdle(5_000);
    expect(claimedIds).toHaveLength(1);

    // Three at once with room for one: one is run as written, two are claimed.
    const three = await Promise.all(['a', 'b', 'c'].map((id) => runtime.publish({ event_name: 'order.placed', payload: { order_id: id } })));
    await runtime.waitForIdle(5_000);
    const rows = await databaseOf(store).selectFrom('deliveries').select(['delivery_id', 'status', 'attempts']).where('event_id', 'in', three.map((r) => r.event_id)).execute();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(Array(3).fill(['delivered', 1]));
    expect(rows.filter((r) => !claimedIds.includes(r.delivery_id))).toHaveLength(1);
    expect(claimedIds).toHaveLength(3);

    // Claims paused (a reset's quiescence): nothing is leased at write either.
    runtime.dispatcher.pauseClaims();
    const paused = await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'paused' } });
    expect(await databaseOf(store).selectFrom('deliveries').select(['status', 'lease_owner']).where('event_id', '=', paused.event_id).executeTakeFirstOrThrow()).toEqual({ status: 'pending', lease_owner: null });
    runtime.dispatcher.resumeClaims();
    await runtime.waitForIdle(5_000);
    expect(claimedIds).toHaveLength(4);
  });

  it('wakeToClaim claims what another writer left pending at once, and again after a claim that was in flight', async () => {
    // Polls far apart: only the wake can make these claims happen within the test's time.
    fx = await bootFixture(minimalBundle(), { dispatcher: { pollMs: 60_000, idlePollMaxMs: 60_000 } });
    const { runtime, store } = fx;
    // Another server's publishes: a runtime on the same store with no dispatcher running writes them
    // pending, and does not wake this one.
    const other = await Runtime.boot({ autoStart: false, store, bundlePath: writeBundle(fx.dir, minimalBundle(), 'other.json') });
    const claim = store.deliveries.claimDueUnlessLocked.bind(store.deliveries);
    let hold: Promise<void> | undefined;
    const held: (() => void)[] = [];
    let claims = 0;
    store.deliveries.claimDueUnlessLocked = async (...args) => {
      claims++;
      const result = await claim(...args);
      // A claim that read the table before the other writer committed, and answers after.
      if (hold) await hold;
      return result;
    };
    const delivered = async (eventId: string) => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const row = await databaseOf(store).selectFrom('deliveries').select('status').where('event_id', '=', eventId).executeTakeFirst();
        if (row?.status === 'delivered') return;
        if (Date.now() > deadline) throw new Error(`delivery of ${eventId} not claimed (${row?.status})`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    try {
      runtime.start();
      await runtime.waitForIdle(5_000);

      const first = await other.publish({ event_name: 'order.placed', payload: { order_id: 'asleep' } });
      runtime.dispatcher.wakeToClaim();
      await delivered(first.event_id);

      hold = new Promise<void>((resolve) => held.push(resolve));
      const claimsBefore = claims;
      runtime.dispatcher.wake();
      while (claims === claimsBefore) await new Promise((resolve) => setImmediate(resolve));
      const second = await other.publish({ event_name: 'order.placed', payload: { order_id: 'in-flight' } });
      runtime.dispatcher.wakeToClaim();
      hold = undefined;
      held.splice(0).forEach((release) => release());
      await delivered(second.event_id);
    } finally {
      held.splice(0).forEach((release) => release());
      await other.stop();
    }
  });

  it('stop() waits for a publish that took handler slots before it and runs its deliveries, so no handler runs after it', async () => {
    fx = await bootFixture(minimalBundle());
    const { runtime, store } = fx;
    runtime.start();
    await runtime.waitForIdle(5_000);
    const publishing = runtime.publish({ event_name: 'order.placed', payload: { order_id: 'at-stop' } });
    // One turn: the publish's batch has reserved its slot and is committing.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await runtime.dispatcher.stop();
    const rows = await databaseOf(store).selectFrom('deliveries').select(['status', 'attempts', 'lease_owner']).execute();
    expect(rows).toEqual([{ status: 'delivered', attempts: 1, lease_owner: null }]);
    expect((await publishing).status).toBe('running');
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
