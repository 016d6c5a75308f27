/**
 * The mutating control methods over real HTTP against the real runtime: event.publish, run.start
 * (deprecated wrapper), runtime.pause / runtime.resume, mailbox.reject and mailbox.approve. Every
 * error code each can return, idempotent replays, and the concurrency guarantees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';
import { CONTROL_BUNDLE, count, fails, ok, openOrderItem, waitForQuiet } from './control-helpers';

let server: TestServer;
let fingerprint: string;
let tokenId: string;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
  fingerprint = (await ok(server, 'runtime.status')).bundle.fingerprint;
  tokenId = (await server.store.tokens.list())[0]!.id;
});
afterAll(async () => {
  await server?.close();
});

let keySeq = 0;
const newKey = () => `ctl-${Date.now()}-${++keySeq}`;

describe.each(['event.publish', 'run.start'])('%s', (method) => {
  it('publishes into the bus: a run, its event and one delivery per subscriber', async () => {
    const result = await ok(server, method, { event_name: 'order.placed', payload: { order_id: `${method}-1`, amount: 12 } });
    expect(result).toEqual({ run_id: expect.stringMatching(/^run_/), status: 'running', event_id: expect.stringMatching(/^evt_/) });
    const { events } = await ok(server, 'event.list', { filter: { run_id: result.run_id } });
    expect(events.map((e: any) => e.event_id)).toContain(result.event_id);
    const root = events.find((e: any) => e.event_id === result.event_id);
    expect(root).toMatchObject({ event_name: 'order.placed', payload: { order_id: `${method}-1`, amount: 12 }, run_id: result.run_id, source: 'api' });
    expect(root.deliveries.map((d: any) => d.subscriber_id).sort()).toEqual(['order-approval', 'record-order']);
    await waitForQuiet(server);
  });

  it('accepts a bundle_ref whose fingerprint is the boot bundle', async () => {
    const result = await ok(server, method, { event_name: 'tick', payload: { n: 1 }, bundle_ref: { fingerprint } });
    expect(result.status).toBe('running');
  });

  it('UNKNOWN_EVENT for a name outside the catalog', async () => {
    const error = await fails(server, method, { event_name: 'order.shipped', payload: {} }, 'UNKNOWN_EVENT');
    expect(error.data.details.event_name).toBe('order.shipped');
    expect(error.data.retryable).toBe(false);
  });

  it('INVALID_PARAMS with issues when the payload does not match the event schema', async () => {
    const error = await fails(server, method, { event_name: 'order.placed', payload: { amount: 'ten' } }, 'INVALID_PARAMS');
    const issues = error.data.details.issues as { path: string; message: string }[];
    expect(issues.length).toBeGreaterThanOrEqual(2);
    expect(issues.map((i) => i.path).join(' ')).toMatch(/order_id/);
    expect(issues.map((i) => i.path).join(' ')).toMatch(/amount/);
  });

  it('INVALID_PARAMS for a missing event_name and for unknown members', async () => {
    await fails(server, method, { payload: {} }, 'INVALID_PARAMS');
    const error = await fails(server, method, { event_name: 'tick', payload: { n: 1 }, bundle: 'x' }, 'INVALID_PARAMS');
    expect(error.data.details.issues[0].path).toBe('bundle');
  });

  it('BUNDLE_MISMATCH with expected and got when bundle_ref names another bundle', async () => {
    const before = await count(server, 'runs');
    const error = await fails(server, method, { event_name: 'tick', payload: { n: 1 }, bundle_ref: { fingerprint: 'sha256:other' } }, 'BUNDLE_MISMATCH');
    expect(error.data.details).toEqual({ expected: fingerprint, got: 'sha256:other' });
    expect(await count(server, 'runs')).toBe(before);
  });

  it('replays the same key and body with the identical result and conflicts on a different body', async () => {
    const key = newKey();
    const params = { event_name: 'tick', payload: { n: 7 }, idempotency_key: key };
    const first = await ok(server, method, params);
    const runsAfterFirst = await count(server, 'runs');
    // Key order does not matter: the body is compared canonically.
    const replay = await ok(server, method, { idempotency_key: key, payload: { n: 7 }, event_name: 'tick' });
    expect(replay).toEqual(first);
    expect(await count(server, 'runs')).toBe(runsAfterFirst);
    const conflict = await fails(server, method, { ...params, payload: { n: 8 } }, 'IDEMPOTENCY_CONFLICT');
    expect(conflict.data.details.idempotency_key).toBe(key);
  });

  it('replays a stored non-retryable error for the same key', async () => {
    const key = newKey();
    const first = await fails(server, method, { event_name: 'nope', idempotency_key: key }, 'UNKNOWN_EVENT');
    const again = await fails(server, method, { event_name: 'nope', idempotency_key: key }, 'UNKNOWN_EVENT');
    expect(again.data.details).toEqual(first.data.details);
  });
});

describe('run.start deprecation', () => {
  it('is marked deprecated in the OpenRPC document, event.publish is not', async () => {
    const doc = await ok(server, 'rpc.discover');
    const byName = Object.fromEntries(doc.methods.map((m: any) => [m.name, m]));
    expect(byName['run.start'].deprecated).toBe(true);
    expect(byName['event.publish'].deprecated ?? false).toBe(false);
  });
});

describe('runtime.pause and runtime.resume', () => {
  it('queues publishes durably while paused and releases each exactly once on resume', async () => {
    await waitForQuiet(server);
    expect(await ok(server, 'runtime.pause', { reason: 'maintenance' })).toEqual({ ok: true, ingress: 'paused' });
    const status = await ok(server, 'runtime.status');
    expect(status.ingress).toBe('paused');
    const queued = [];
    for (let i = 0; i < 5; i++) queued.push(await ok(server, 'event.publish', { event_name: 'tick', payload: { n: i } }));
    expect(queued.every((q) => q.status === 'queued')).toBe(true);
    expect((await ok(server, 'runtime.status')).queue_depth).toBe(5);
    // Queued publishes are not events yet: nothing is dispatched while paused.
    const { events } = await ok(server, 'event.list', { filter: { run_id: queued[0].run_id } });
    expect(events).toEqual([]);

    const resumed = await ok(server, 'runtime.resume');
    expect(resumed).toEqual({ ok: true, released: 5 });
    const after = await ok(server, 'runtime.status');
    expect(after).toMatchObject({ ingress: 'open', queue_depth: 0 });
    for (const q of queued) {
      const { events: released } = await ok(server, 'event.list', { filter: { run_id: q.run_id } });
      expect(released.map((e: any) => e.event_id)).toEqual([q.event_id]);
    }
    await waitForQuiet(server);
  });

  it('pause and resume are idempotent: replays return the stored result and do not act again', async () => {
    const pauseKey = newKey();
    const paused = await ok(server, 'runtime.pause', { idempotency_key: pauseKey, reason: 'r1' });
    expect(await ok(server, 'runtime.pause', { idempotency_key: pauseKey, reason: 'r1' })).toEqual(paused);
    await fails(server, 'runtime.pause', { idempotency_key: pauseKey, reason: 'r2' }, 'IDEMPOTENCY_CONFLICT');

    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 100 } });
    const resumeKey = newKey();
    const resumed = await ok(server, 'runtime.resume', { idempotency_key: resumeKey });
    expect(resumed).toEqual({ ok: true, released: 1 });
    await ok(server, 'runtime.pause');
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 101 } });
    // A replay returns the first call's result and does not resume again: the new item stays queued.
    expect(await ok(server, 'runtime.resume', { idempotency_key: resumeKey })).toEqual(resumed);
    expect(await ok(server, 'runtime.status')).toMatchObject({ ingress: 'paused', queue_depth: 1 });
    expect(await ok(server, 'runtime.resume')).toEqual({ ok: true, released: 1 });
  });

  it('resume while open is a no-op success; params are validated', async () => {
    expect(await ok(server, 'runtime.resume')).toEqual({ ok: true, released: 0 });
    await fails(server, 'runtime.resume', { force: true }, 'INVALID_PARAMS');
    await fails(server, 'runtime.pause', { reason: 'x'.repeat(2001) }, 'INVALID_PARAMS');
  });

  it('two concurrent resumes with 1,000 queued publishes dispatch each exactly once', async () => {
    await waitForQuiet(server);
    const counterBefore = await tickCount();
    await ok(server, 'runtime.pause');
    // 1,000 publishes in batches of 100 (one HTTP request per batch).
    const runIds: string[] = [];
    for (let b = 0; b < 10; b++) {
      const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: `${b}-${i}`, method: 'event.publish', params: { event_name: 'tick', payload: { n: b * 100 + i } } }));
      const res = await server.post('/v1/rpc', batch);
      const answers = (await res.json()) as any[];
      for (const a of answers) {
        expect(a.result.status).toBe('queued');
        runIds.push(a.result.run_id);
      }
    }
    expect((await ok(server, 'runtime.status')).queue_depth).toBe(1000);

    const [a, b] = await Promise.all([ok(server, 'runtime.resume'), ok(server, 'runtime.resume')]);
    expect(a.ok && b.ok).toBe(true);
    expect(a.released + b.released).toBe(1000);
    await waitForQuiet(server, 60_000);

    // Exactly once: one event per queued run, one delivered delivery each, and the counter moved by exactly 1,000.
    const rows = await server.store.db
      .selectFrom('events')
      .select(['run_id', 'event_id'])
      .where('run_id', 'in', runIds)
      .execute();
    expect(rows.length).toBe(1000);
    expect(new Set(rows.map((r) => r.run_id)).size).toBe(1000);
    const deliveries = await server.store.db.selectFrom('deliveries').select(['status']).where('run_id', 'in', runIds).execute();
    expect(deliveries.length).toBe(1000);
    expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
    expect(await tickCount()).toBe(counterBefore + 1000);
    const released = await server.store.db.selectFrom('ingress_queue').select(['status']).where('run_id', 'in', runIds).execute();
    expect(released.every((r) => r.status === 'released')).toBe(true);
  }, 120_000);
});

async function tickCount(): Promise<number> {
  const row = await server.store.db.selectFrom('entities').select('accumulated').where('entity_id', '=', 'counter-main').executeTakeFirst();
  return row ? Number((JSON.parse(row.accumulated) as { ticks?: number }).ticks ?? 0) : 0;
}

describe('mailbox.reject', () => {
  it('rejects with a reason: status rejected, history entry with the token id, no downstream event', async () => {
    const item = await openOrderItem(server, 'R1');
    await waitForQuiet(server);
    const eventsBefore = await count(server, 'events');
    const result = await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: '  not eligible  ' });
    expect(result).toEqual({ ok: true, status: 'rejected', mailbox_decision_id: expect.stringMatching(/^dec_/), idempotency_replayed: false });
    expect(result).not.toHaveProperty('downstream_event_id');
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.item).toMatchObject({ status: 'rejected', decision: 'rejected', decided_at: expect.any(String) });
    const entry = got.history.find((h: any) => h.action === 'rejected');
    expect(entry).toMatchObject({ actor_token_id: tokenId, reason: 'not eligible' });
    expect(entry.actor_token_id).not.toBe(server.token);
    await waitForQuiet(server);
    expect(await count(server, 'events')).toBe(eventsBefore);
  });

  it('requires a non-empty reason of at most 2000 characters', async () => {
    const item = await openOrderItem(server, 'R2');
    for (const reason of [undefined, '', '   ', 'x'.repeat(2001)]) {
      const error = await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, ...(reason === undefined ? {} : { reason }) }, 'INVALID_PARAMS');
      expect(error.data.details.issues[0].path).toBe('reason');
    }
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
  });

  it('MAILBOX_NOT_PENDING on a decided item, NOT_FOUND on an unknown one', async () => {
    const item = await openOrderItem(server, 'R3');
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'first' });
    const again = await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'second' }, 'MAILBOX_NOT_PENDING');
    expect(again.data.details.status).toBe('rejected');
    const missing = await fails(server, 'mailbox.reject', { mailbox_id: 'mbx_missing', reason: 'x' }, 'NOT_FOUND');
    expect(missing.data.details).toMatchObject({ id: 'mbx_missing' });
    const history = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).history.filter((h: any) => h.action !== 'created');
    expect(history).toHaveLength(1);
  });

  it('replays with idempotency_replayed true and conflicts on a different body', async () => {
    const item = await openOrderItem(server, 'R4');
    const key = newKey();
    const first = await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'dup', idempotency_key: key });
    const replay = await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'dup', idempotency_key: key });
    expect(replay).toEqual({ ...first, idempotency_replayed: true });
    await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'other', idempotency_key: key }, 'IDEMPOTENCY_CONFLICT');
    const history = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).history.filter((h: any) => h.action === 'rejected');
    expect(history).toHaveLength(1);
  });
});

describe('mailbox.approve', () => {
  it("emits the approval route's event and returns its id, name, subscribers and source", async () => {
    const item = await openOrderItem(server, 'A1', 42);
    await waitForQuiet(server);
    const result = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, reason: 'fine' });
    expect(result).toEqual({
      ok: true,
      status: 'approved',
      mailbox_decision_id: expect.stringMatching(/^dec_/),
      idempotency_replayed: false,
      downstream_event_id: expect.stringMatching(/^evt_/),
      downstream_event_name: 'order.approved',
      downstream_subscribers: ['mark-approved'],
      downstream_subscriber_source: 'event_catalog',
    });
    const { events } = await ok(server, 'event.list', { filter: { event_id: result.downstream_event_id } });
    expect(events[0]).toMatchObject({ event_name: 'order.approved', entity_id: item.entity_id, run_id: item.run_id, payload: { order_id: 'A1', amount: 42 } });
    const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
    expect(got.history.find((h: any) => h.action === 'approved')).toMatchObject({ actor_token_id: tokenId, reason: 'fine' });
    await waitForQuiet(server);
    const entity = await server.store.db.selectFrom('entities').selectAll().where('entity_id', '=', item.entity_id).executeTakeFirstOrThrow();
    expect(entity.current_state).toBe('approved');
  });

  it('STALE_DECISION_SHEET when the entity moved past expected_entity_revision; the current revision is accepted', async () => {
    const item = await openOrderItem(server, 'A2');
    await waitForQuiet(server);
    const sheet = (await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).decision_sheet;
    const revision = sheet.entity_context.entity.entity.revision as number;
    const stale = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: revision - 1 }, 'STALE_DECISION_SHEET');
    expect(stale.data.details).toEqual({ expected: revision - 1, actual: revision });
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
    const approved = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: revision });
    expect(approved.status).toBe('approved');
  });

  it('INVALID_PARAMS when the decision payload does not fit the emitted event; the item stays pending', async () => {
    const item = await openOrderItem(server, 'A5');
    const error = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, decision_payload: { amount: 'lots' } }, 'INVALID_PARAMS');
    expect(error.data.details.issues[0].path).toMatch(/^decision_payload/);
    expect((await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id })).item.status).toBe('pending');
    await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, expected_entity_revision: 1.5 }, 'INVALID_PARAMS');
  });

  it('MAILBOX_NOT_PENDING after a decision, NOT_FOUND for an unknown item', async () => {
    const item = await openOrderItem(server, 'A3');
    await ok(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'no' });
    const error = await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id }, 'MAILBOX_NOT_PENDING');
    expect(error.data.details.status).toBe('rejected');
    await fails(server, 'mailbox.approve', { mailbox_id: 'mbx_nope' }, 'NOT_FOUND');
  });

  it('replays with idempotency_replayed true (no second event) and conflicts on a different body', async () => {
    const item = await openOrderItem(server, 'A4');
    const key = newKey();
    const first = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, idempotency_key: key });
    const replay = await ok(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, idempotency_key: key });
    expect(replay).toEqual({ ...first, idempotency_replayed: true });
    await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id, reason: 'changed', idempotency_key: key }, 'IDEMPOTENCY_CONFLICT');
    expect(await count(server, 'events', ['event_name', 'order.approved'])).toBeGreaterThan(0);
    const approvals = await server.store.db.selectFrom('events').select('event_id').where('source', '=', `mailbox:${item.mailbox_id}`).execute();
    expect(approvals).toHaveLength(1);
  });
});

describe('concurrent decisions on one item', () => {
  it('exactly one of two concurrent decisions wins; the other gets MAILBOX_NOT_PENDING', async () => {
    const items = [];
    for (let i = 0; i < 6; i++) items.push(await openOrderItem(server, `C${i}`));
    for (const [i, item] of items.entries()) {
      const calls =
        i % 2 === 0
          ? [server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'a' }), server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'b' })]
          : [server.rpc('mailbox.approve', { mailbox_id: item.mailbox_id }), server.rpc('mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'b' })];
      const answers = await Promise.all(calls);
      const wins = answers.filter((a) => a.result?.ok === true);
      const losses = answers.filter((a) => a.error?.data.code === 'MAILBOX_NOT_PENDING');
      expect({ wins: wins.length, losses: losses.length }).toEqual({ wins: 1, losses: 1 });
      const got = await ok(server, 'mailbox.get', { mailbox_id: item.mailbox_id });
      expect(got.item.status).toBe(wins[0].result.status);
      // The decision and its history entry committed together, once.
      expect(got.history.filter((h: any) => h.action === 'approved' || h.action === 'rejected')).toHaveLength(1);
      const emitted = await server.store.db.selectFrom('events').select('event_id').where('source', '=', `mailbox:${item.mailbox_id}`).execute();
      expect(emitted).toHaveLength(wins[0].result.status === 'approved' ? 1 : 0);
    }
  });
});
