/** Deeply nested params are refused as INVALID_PARAMS (not a stack overflow answered INTERNAL). */
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_PARAMS_DEPTH } from '@switchboard/contract';
import { CONTROL_BUNDLE } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';
import { wsUrl } from './ws-client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
});
afterAll(() => server.close());

/** JSON text of `levels` nested arrays or objects around a number, built without recursion. */
function nestedJson(levels: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(levels) + '1' + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

for (const kind of ['array', 'object'] as const) {
  it(`a payload of 10,000 nested ${kind}s is INVALID_PARAMS naming the limit, over HTTP`, async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"event.publish","params":{"event_name":"tick","payload":{"n":1,"deep":${nestedJson(10_000, kind)}},"idempotency_key":"deep-${kind}"}}`;
    const res = await server.post('/v1/rpc', body);
    const answer: unknown = await res.json();
    expectRpcError(answer, 'INVALID_PARAMS');
    expect(answer.error.data.details.max_depth).toBe(MAX_PARAMS_DEPTH);
  });

  it(`params of 10,000 nested ${kind}s are INVALID_PARAMS over WebSocket`, async () => {
    const socket = new WebSocket(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
    await new Promise((resolve) => socket.once('open', resolve));
    const answer = await new Promise<unknown>((resolve) => {
      socket.once('message', (data) => resolve(JSON.parse(data.toString())));
      socket.send(`{"jsonrpc":"2.0","id":7,"method":"event.list","params":{"filter":${nestedJson(10_000, kind)}}}`);
    });
    expectRpcError(answer, 'INVALID_PARAMS');
    socket.close();
  });
}

it(`params exactly ${MAX_PARAMS_DEPTH} levels deep are accepted`, async () => {
  // params (1) > payload (2) > 61 more levels, holding the number.
  const body = `{"jsonrpc":"2.0","id":1,"method":"event.publish","params":{"event_name":"tick","payload":{"n":1,"deep":${nestedJson(MAX_PARAMS_DEPTH - 2, 'array')}}}}`;
  const answer = (await (await server.post('/v1/rpc', body)).json()) as { result?: unknown };
  expect(answer.result).toBeTruthy();
});
