/**
 * The idempotency layer every mutating method gets (v1-decisions, Idempotency), exercised through
 * a test-only mutating method over real HTTP: replay, canonical bodies, conflicts, in-progress
 * calls, per-token keys, 24-hour retention and which errors are stored.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Clock } from '@switchboard/store';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError, rawPost } from './rpc-helpers';
import { createTestMethods, type TestMethods } from './test-methods';

const HOUR = 60 * 60 * 1000;

class MutableClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

let server: TestServer;
let testMethods: TestMethods;
const clock = new MutableClock();

beforeAll(async () => {
  testMethods = createTestMethods();
  server = await startTestServer({ clock, extraMethods: testMethods.methods });
});
afterAll(async () => {
  await server?.close();
});

let keySeq = 0;
let key: string;
beforeEach(() => {
  key = `key-${++keySeq}`;
});

/** Calls test.record with a literal params text, so member order is exactly what the test wrote. */
async function recordRaw(paramsJson: string, token = server.token) {
  const res = await rawPost(server, '/v1/rpc', `{"jsonrpc":"2.0","id":1,"method":"test.record","params":${paramsJson}}`, {
    authorization: `Bearer ${token}`,
  });
  expect(res.status).toBe(200);
  return res.json;
}

const record = (params: Record<string, unknown>, token?: string) => recordRaw(JSON.stringify(params), token);

describe('replay', () => {
  test('the same key and body returns the stored result, flagged as replayed, without running again', async () => {
    const first = await record({ value: { amount: 5 }, idempotency_key: key });
    expect(first.result).toEqual({ execution: expect.any(Number), value: { amount: 5 }, idempotency_replayed: false });
    const ran = testMethods.executions();
    const second = await record({ value: { amount: 5 }, idempotency_key: key });
    expect(second.result).toEqual({ ...first.result, idempotency_replayed: true });
    const third = await rawPost(server, '/v1/rpc/test.record', JSON.stringify({ jsonrpc: '2.0', id: 'x', params: { value: { amount: 5 }, idempotency_key: key } }));
    expect(third.json.result).toEqual(second.result);
    expect(testMethods.executions()).toBe(ran);
  });

  test('the same body with members in another order is a replay, not a conflict', async () => {
    const first = await recordRaw(`{"idempotency_key":"${key}","value":{"a":1,"b":{"x":true,"y":[1,2]}}}`);
    const reordered = await recordRaw(`{"value":{"b":{"y":[1,2],"x":true},"a":1},"idempotency_key":"${key}"}`);
    expect(reordered.error).toBeUndefined();
    expect(reordered.result).toEqual({ ...first.result, idempotency_replayed: true });
  });

  test('without a key every call runs', async () => {
    const before = testMethods.executions();
    await record({ value: 1 });
    await record({ value: 1 });
    expect(testMethods.executions()).toBe(before + 2);
  });
});

describe('conflicts and concurrency', () => {
  test('the same key with a changed value is IDEMPOTENCY_CONFLICT, and the stored result survives', async () => {
    const first = await record({ value: { amount: 5 }, idempotency_key: key });
    const conflict = await record({ value: { amount: 6 }, idempotency_key: key });
    expectRpcError(conflict, 'IDEMPOTENCY_CONFLICT');
    expect(conflict.error.data.retryable).toBe(false);
    expect(conflict.error.data.details).toEqual({ idempotency_key: key });
    const extraMember = await record({ value: { amount: 5 }, hold: false, idempotency_key: key });
    expectRpcError(extraMember, 'IDEMPOTENCY_CONFLICT');
    const again = await record({ value: { amount: 5 }, idempotency_key: key });
    expect(again.result).toEqual({ ...first.result, idempotency_replayed: true });
  });

  test('a second call while the first is still running is IDEMPOTENCY_IN_PROGRESS (retryable)', async () => {
    const running = record({ value: 'slow', hold: true, idempotency_key: key });
    await testMethods.started();
    const during = await record({ value: 'slow', hold: true, idempotency_key: key });
    expectRpcError(during, 'IDEMPOTENCY_IN_PROGRESS');
    expect(during.error.data.retryable).toBe(true);
    testMethods.release();
    const first = await running;
    expect(first.result.idempotency_replayed).toBe(false);
    const after = await record({ value: 'slow', hold: true, idempotency_key: key });
    expect(after.result).toEqual({ ...first.result, idempotency_replayed: true });
  });

  test('a changed body while the first call runs is a conflict, not in-progress', async () => {
    const running = record({ value: 'a', hold: true, idempotency_key: key });
    await testMethods.started();
    expectRpcError(await record({ value: 'b', idempotency_key: key }), 'IDEMPOTENCY_CONFLICT');
    testMethods.release();
    await running;
  });
});

describe('keys are per token', () => {
  test('another token may use the same key with any body; each token replays its own result', async () => {
    const { secret: other } = await server.store.tokens.create('second-token');
    const mine = await record({ value: 'mine', idempotency_key: key });
    const theirs = await record({ value: 'theirs', idempotency_key: key }, other);
    expect(theirs.error).toBeUndefined();
    expect(theirs.result).toMatchObject({ value: 'theirs', idempotency_replayed: false });
    expect(theirs.result.execution).not.toBe(mine.result.execution);
    expect((await record({ value: 'mine', idempotency_key: key })).result).toEqual({ ...mine.result, idempotency_replayed: true });
    expect((await record({ value: 'theirs', idempotency_key: key }, other)).result).toEqual({ ...theirs.result, idempotency_replayed: true });
  });
});

describe('retention', () => {
  test('a stored response is kept for 24 hours, then the key is free again', async () => {
    const first = await record({ value: 'day-one', idempotency_key: key });
    clock.advance(23 * HOUR + 59 * 60 * 1000);
    expect((await record({ value: 'day-one', idempotency_key: key })).result.idempotency_replayed).toBe(true);
    expectRpcError(await record({ value: 'changed', idempotency_key: key }), 'IDEMPOTENCY_CONFLICT');
    clock.advance(2 * 60 * 1000);
    const fresh = await record({ value: 'changed', idempotency_key: key });
    expect(fresh.error).toBeUndefined();
    expect(fresh.result.idempotency_replayed).toBe(false);
    expect(fresh.result.execution).toBeGreaterThan(first.result.execution);
  });

  test('expired records are purged from the store', async () => {
    await record({ value: 'purge-me', idempotency_key: key });
    const before = await server.store.idempotency.count();
    clock.advance(25 * HOUR);
    const purged = await server.store.idempotency.purgeExpired();
    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await server.store.idempotency.count()).toBe(before - purged);
  });
});

describe('which outcomes are stored', () => {
  test('a non-retryable error is stored and replayed without running again', async () => {
    const first = await record({ value: 1, fail: 'not_found', idempotency_key: key });
    expectRpcError(first, 'NOT_FOUND');
    const ran = testMethods.executions();
    const replay = await record({ value: 1, fail: 'not_found', idempotency_key: key });
    expectRpcError(replay, 'NOT_FOUND');
    expect(replay.error.message).toBe(first.error.message);
    expect(replay.error.data.details).toEqual(first.error.data.details);
    expect(replay.error.data.correlation_id).not.toBe(first.error.data.correlation_id);
    expect(testMethods.executions()).toBe(ran);
  });

  test('a retryable error (INTERNAL) is not stored: the retry runs again', async () => {
    const first = await record({ value: 2, fail: 'internal', idempotency_key: key });
    expectRpcError(first, 'INTERNAL');
    expect(first.error.data.retryable).toBe(true);
    const ran = testMethods.executions();
    const retry = await record({ value: 2, fail: 'internal', idempotency_key: key });
    expectRpcError(retry, 'INTERNAL');
    expect(testMethods.executions()).toBe(ran + 1);
  });

  test('invalid params are rejected before a key is claimed', async () => {
    expectRpcError(await record({ value: 3, fail: 'sometimes', idempotency_key: key }), 'INVALID_PARAMS');
    const ok = await record({ value: 3, idempotency_key: key });
    expect(ok.result.idempotency_replayed).toBe(false);
  });
});
