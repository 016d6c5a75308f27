/** Per-token rate limiting (v1-decisions: 429 RATE_LIMITED with details.retry_after_ms), over HTTP and WebSocket. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Result } from '@switchboard/contract';
import { startTestServer, type RpcAnswer, type TestServer } from './harness';
import { expectRpcError, rawPost } from './rpc-helpers';
import { RpcSocket, wsUrl } from './ws-client';

/** Time moves only when the test says so: the budget never refills behind the test's back. */
class ManualClock {
  private t = Date.now();
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

const clock = new ManualClock();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_RATE_LIMIT_PER_S: '1' }, clock });
});
afterAll(async () => {
  await server?.close();
});

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.ping', params: {} });

test('over the budget is 429 RATE_LIMITED with retry_after_ms; other tokens are unaffected; waiting lets the call through', async () => {
  const statuses: number[] = [];
  let limited: Awaited<ReturnType<typeof rawPost>> | undefined;
  for (let i = 0; i < 4; i++) {
    const res = await rawPost(server, '/v1/rpc', PING);
    statuses.push(res.status);
    if (res.status === 429) limited ??= res;
  }
  // 1/s sustained with a burst of two seconds' worth: the third call in a row is refused.
  expect(statuses.slice(0, 2)).toEqual([200, 200]);
  expect(limited).toBeDefined();
  expectRpcError(limited!.json, 'RATE_LIMITED', limited!.headers.get('x-correlation-id'));
  expect(limited!.json.error.data.retryable).toBe(true);
  const wait = limited!.json.error.data.details.retry_after_ms;
  expect(Number.isInteger(wait)).toBe(true);
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(1000);
  expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

  const { secret: other } = await server.store.tokens.create('other-client');
  expect((await rawPost(server, '/v1/rpc', PING, { authorization: `Bearer ${other}` })).status).toBe(200);

  const refused = await rawPost(server, '/v1/rpc', PING);
  expect(refused.status).toBe(429);
  clock.advance(refused.json.error.data.details.retry_after_ms - 1);
  expect((await rawPost(server, '/v1/rpc', PING)).status).toBe(429);
  clock.advance(1);
  expect((await rawPost(server, '/v1/rpc', PING)).status).toBe(200);
});

test('WebSocket frames draw on the same per-token budget', async () => {
  const { secret } = await server.store.tokens.create('ws-client');
  const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${secret}` } });
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await socket.sendRaw<RpcAnswer<Result<'health.ping'>>>(PING));
  expect(answers[0]?.result?.ok).toBe(true);
  expect(answers[1]?.result?.ok).toBe(true);
  expectRpcError(answers[2], 'RATE_LIMITED');
  expect(answers[2].error.data.details.retry_after_ms).toBeGreaterThan(0);
  await socket.close();
  const http = await rawPost(server, '/v1/rpc', PING, { authorization: `Bearer ${secret}` });
  expect(http.status).toBe(429);
});
