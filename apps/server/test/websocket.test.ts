/**
 * JSON-RPC over /v1/ws (v1-decisions, WebSocket): heartbeat subscriptions and their notification
 * shape, unsubscribe, per-socket bounds, dead-peer detection, and frame-level errors.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heartbeatNotification, methods } from '@switchboard/contract';
import { MAX_FRAMES_IN_FLIGHT } from '../src/ws/socket-server';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';
import { RpcSocket, wsUrl, type WireFrame } from './ws-client';

const HEARTBEAT_MS = 150;
const PING_MS = 100;
const MAX_SUBSCRIPTIONS = 3;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: {
      SWITCHBOARD_HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
      SWITCHBOARD_WS_PING_INTERVAL_MS: String(PING_MS),
      SWITCHBOARD_MAX_SUBSCRIPTIONS_PER_SOCKET: String(MAX_SUBSCRIPTIONS),
    },
  });
});
afterAll(async () => {
  await server?.close();
});

const open = () => RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });

describe('heartbeat subscriptions', () => {
  test('subscribe answers a subscription_id, then heartbeats with the health.check shape arrive at once and every interval', async () => {
    const socket = await open();
    const subscribedAt = Date.now();
    const response = await socket.call('health.subscribe', {});
    expect(response.error).toBeUndefined();
    const id = response.result!.subscription_id;
    expect(typeof id).toBe('string');
    expect(id.length).toBeGreaterThan(0);

    await socket.waitFor(() => (socket.heartbeats(id).length >= 1 ? true : undefined));
    expect(Date.now() - subscribedAt).toBeLessThan(HEARTBEAT_MS);
    await socket.waitFor(() => (socket.heartbeats(id).length >= 3 ? true : undefined));
    for (const frame of socket.heartbeats(id)) {
      expect(heartbeatNotification.safeParse(frame).success).toBe(true);
      expect(methods['health.check'].result.safeParse(frame.params.result).success).toBe(true);
      expect(frame).not.toHaveProperty('id');
    }
    await socket.close();
  });

  test('unsubscribe stops that subscription only', async () => {
    const socket = await open();
    const a = (await socket.call('health.subscribe', {})).result!.subscription_id;
    const b = (await socket.call('health.subscribe', {})).result!.subscription_id;
    expect(a).not.toBe(b);
    await socket.waitFor(() => (socket.heartbeats(a).length >= 1 && socket.heartbeats(b).length >= 1 ? true : undefined));
    const done = await socket.call('health.unsubscribe', { subscription_id: a });
    expect(done.result).toEqual({ ok: true });
    const countA = socket.heartbeats(a).length;
    const countB = socket.heartbeats(b).length;
    // Heartbeats are one broadcast per tick: three more ticks for b are three that a would have had.
    await socket.waitFor(() => (socket.heartbeats(b).length >= countB + 3 ? true : undefined));
    expect(socket.heartbeats(a).length).toBe(countA);
    await socket.close();
  });

  test('unsubscribing an unknown or already ended subscription is NOT_FOUND', async () => {
    const socket = await open();
    const id = (await socket.call('health.subscribe', {})).result!.subscription_id;
    await socket.call('health.unsubscribe', { subscription_id: id });
    const again = await socket.call('health.unsubscribe', { subscription_id: id });
    expectRpcError(again, 'NOT_FOUND');
    expect(again.error.data.details).toEqual({ resource: 'subscription', id });
    expectRpcError(await socket.call('health.unsubscribe', { subscription_id: 'sub_nope' }), 'NOT_FOUND');
    expectRpcError(await socket.callUnchecked('health.unsubscribe', {}), 'INVALID_PARAMS');
    await socket.close();
  });

  test('a subscription belongs to its socket: another socket cannot end it', async () => {
    const owner = await open();
    const other = await open();
    const id = (await owner.call('health.subscribe', {})).result!.subscription_id;
    expectRpcError(await other.call('health.unsubscribe', { subscription_id: id }), 'NOT_FOUND');
    await owner.close();
    await other.close();
  });

  test('subscriptions per socket are bounded; ending one frees a slot', async () => {
    const socket = await open();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) ids.push((await socket.call('health.subscribe', {})).result!.subscription_id);
    const over = await socket.call('health.subscribe', {});
    expectRpcError(over, 'INVALID_REQUEST');
    expect(over.error.data.details).toEqual({ limit: MAX_SUBSCRIPTIONS });
    await socket.call('health.unsubscribe', { subscription_id: ids[0]! });
    expect((await socket.call('health.subscribe', {})).result!.subscription_id).toEqual(expect.any(String));
    await socket.close();
  });

  test('closing the socket ends all its subscriptions', async () => {
    await expect.poll(() => server.sockets.subscriptionCount() === 0, { timeout: 3000, interval: 10 }).toBe(true);
    const socket = await open();
    await socket.call('health.subscribe', {});
    await socket.call('health.subscribe', {});
    expect(server.sockets.subscriptionCount()).toBe(2);
    await socket.close();
    await expect.poll(() => server.sockets.subscriptionCount() === 0 && server.sockets.connectionCount() === 0, { timeout: 3000, interval: 10 }).toBe(true);
  });
});

describe('dead peers', () => {
  test('a peer that stops answering pings is dropped; a live one stays', async () => {
    const dead = new WebSocket(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` }, autoPong: false });
    await new Promise((resolve) => dead.once('open', resolve));
    const live = await open();
    const deadSub = new RpcSocket(dead);
    await deadSub.call('health.subscribe', {});
    const closed = new Promise<number>((resolve) => dead.once('close', (code) => resolve(code)));
    const code = await closed;
    // Terminated by the server without a closing handshake.
    expect(code).toBe(1006);
    expect(live.socket.readyState).toBe(WebSocket.OPEN);
    // Three more pings answered: the live peer outlasts several rounds of dead-peer detection.
    let pings = 0;
    live.socket.on('ping', () => pings++);
    await expect.poll(() => pings >= 3, { timeout: 5_000, interval: 10 }).toBe(true);
    expect(live.socket.readyState).toBe(WebSocket.OPEN);
    expect((await live.call('health.ping', {})).result!.ok).toBe(true);
    await live.close();
    await expect.poll(() => server.sockets.subscriptionCount() === 0, { timeout: 3000, interval: 10 }).toBe(true);
  });
});

describe('frames', () => {
  test('invalid JSON, invalid requests, unknown methods and binary frames get JSON-RPC errors with a correlation id', async () => {
    const socket = await open();
    const parse = await socket.sendRaw('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expectRpcError(parse, 'PARSE_ERROR');
    expect(parse.id).toBeNull();
    expectRpcError(await socket.sendRaw('{"jsonrpc": "2.0", "method": 1, "params": "bar"}'), 'INVALID_REQUEST');
    expectRpcError(await socket.sendRaw('[]'), 'INVALID_REQUEST');
    const unknown = await socket.callUnchecked('no.such.method', {});
    expectRpcError(unknown, 'METHOD_NOT_FOUND');
    const binary = new Promise<WireFrame>((resolve) => socket.socket.once('message', (data) => resolve(JSON.parse(data.toString()) as WireFrame)));
    socket.socket.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"health.ping"}'), { binary: true });
    expectRpcError(await binary, 'INVALID_REQUEST');
    await socket.close();
  });

  test('a batch is answered as an array; notifications in it get no answer', async () => {
    const socket = await open();
    const answer = await socket.sendRaw<WireFrame[]>(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'health.ping', params: {} },
        { jsonrpc: '2.0', method: 'health.ping', params: {} },
        { jsonrpc: '2.0', id: 'b', method: 'health.ping', params: [] },
      ]),
    );
    expect(answer).toHaveLength(2);
    expect(answer.find((r) => r.id === 'a')?.result).toEqual({ ok: true, ts: expect.any(String) });
    expectRpcError(answer.find((r) => r.id === 'b'), 'INVALID_PARAMS');
    await socket.close();
  });

  test('many frames sent at once are all answered, though only a few are worked on at a time', async () => {
    const socket = await open();
    const frames = MAX_FRAMES_IN_FLIGHT * 5;
    const answers = await Promise.all(Array.from({ length: frames }, (_, i) => socket.callUnchecked(i % 2 ? 'health.ping' : 'no.such.method', {})));
    expect(answers.map((a) => (a.error ? a.error.data.code : 'ok'))).toEqual(Array.from({ length: frames }, (_, i) => (i % 2 ? 'ok' : 'METHOD_NOT_FOUND')));
    await socket.close();
  });

  test('every frame gets one log line with method, token id, duration, outcome and correlation id', async () => {
    const socket = await open();
    const response = await socket.callUnchecked('no.such.method', {});
    const line = server.logs.find((l) => l.msg === 'ws frame' && l.correlation_id === response.error!.data.correlation_id);
    expect(line).toMatchObject({ method: 'no.such.method', token_id: expect.stringMatching(/^tok_/), outcome: 'METHOD_NOT_FOUND', duration_ms: expect.any(Number) });
    await socket.close();
  });
});
