/**
 * event.publish and run.start (its deprecated wrapper) over real HTTP against the real runtime (the control test bundle): every error code it
 * can return, idempotent replays and the concurrency guarantees.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { keyMaker, withControlServer } from './method-servers';
import { count, fails, ok, waitForQuiet } from '../control-helpers';
import { testEngine } from '@switchboard/store/testing';

let server: TestServer;
let fingerprint: string;
withControlServer(async (s) => {
  server = s;
  fingerprint = (await ok(server, 'runtime.status')).bundle.fingerprint;
});
const newKey = keyMaker('pub');

describe.each(['event.publish', 'run.start'] as const)('%s', (method) => {
  it('publishes into the bus: a run, its event and one delivery per subscriber', async () => {
    const result = await ok(server, method, { event_name: 'order.placed', payload: { order_id: `${method}-1`, amount: 12 } });
    expect(result).toEqual({ run_id: expect.stringMatching(/^run_/), status: 'running', event_id: expect.stringMatching(/^evt_/) });
    const { events } = await ok(server, 'event.list', { filter: { run_id: result.run_id } });
    expect(events.map((e: any) => e.event_id)).toContain(result.event_id);
    const root = events.find((e: any) => e.event_id === result.event_id);
    expect(root).toMatchObject({ event_name: 'order.placed', payload: { order_id: `${method}-1`, amount: 12 }, run_id: result.run_id, source: 'api' });
    expect(root!.deliveries.map((d: any) => d.subscriber_id).sort()).toEqual(['order-approval', 'record-order']);
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
    expect(error.data.details.issues?.[0]?.path).toBe('bundle');
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

describe('event.publish under group commit', () => {
  it('a batch of concurrent publishes shares one commit, and each member gets its own answer: valid ones, UNKNOWN_EVENT, a replay and an IDEMPOTENCY_CONFLICT', async () => {
    const replayedKey = newKey();
    const earlier = await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 }, idempotency_key: replayedKey });
    const [k1, k2, unknownKey] = [newKey(), newKey(), newKey()];
    const calls = [
      { event_name: 'tick', payload: { n: 10 }, idempotency_key: k1 },
      { event_name: 'order.shipped', payload: {}, idempotency_key: unknownKey },
      { event_name: 'tick', payload: { n: 1 }, idempotency_key: replayedKey },
      { event_name: 'tick', payload: { n: 2 }, idempotency_key: replayedKey },
      { event_name: 'tick', payload: { n: 11 }, idempotency_key: k2 },
      { event_name: 'tick', payload: { n: 12 } },
    ];
    // Deliveries also commit through the group; with claims paused, only this batch's publishes do.
    await waitForQuiet(server);
    server.runtime.dispatcher.pauseClaims();
    const before = { ...server.store.groupCommit.stats };
    let response: Response;
    try {
      response = await server.post('/v1/rpc', calls.map((params, i) => ({ jsonrpc: '2.0', id: i, method: 'event.publish', params })));
    } finally {
      server.runtime.dispatcher.resumeClaims();
    }
    const after = { ...server.store.groupCommit.stats };
    const answers = ((await response.json()) as { id: number; result?: { run_id: string; event_id: string; status: string }; error?: { data: { code: string } } }[]).sort((a, b) => a.id - b.id);

    expect(answers[0]!.result).toMatchObject({ status: 'running', event_id: expect.stringMatching(/^evt_/) });
    expect(answers[1]!.error!.data.code).toBe('UNKNOWN_EVENT');
    expect(answers[2]!.result).toEqual(earlier);
    expect(answers[3]!.error!.data.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(answers[4]!.result).toMatchObject({ status: 'running' });
    expect(answers[5]!.result).toMatchObject({ status: 'running' });
    // On SQLite (synchronous) the three new publishes reach the runtime in one turn of the event
    // loop: written together, one member of one group, one transaction, one fsync. On PostgreSQL
    // each first waits for its idempotency claim's round trip, so they may arrive apart.
    if (testEngine() === 'sqlite') expect([after.members - before.members, after.groups - before.groups]).toEqual([1, 1]);
    else {
      expect(after.members - before.members).toBeLessThanOrEqual(3);
      expect(after.groups - before.groups).toBeLessThanOrEqual(3);
    }

    // Each new event is stored once, and its key replays its own answer.
    for (const i of [0, 4, 5]) {
      const { events } = await ok(server, 'event.list', { filter: { event_id: answers[i]!.result!.event_id } });
      expect(events).toHaveLength(1);
    }
    expect(await ok(server, 'event.publish', calls[0]!)).toEqual(answers[0]!.result);
    expect(await ok(server, 'event.publish', calls[4]!)).toEqual(answers[4]!.result);
    // The refused member stored its error under its key, as a lone call would.
    await fails(server, 'event.publish', calls[1]!, 'UNKNOWN_EVENT');
    await waitForQuiet(server);
  });
});
