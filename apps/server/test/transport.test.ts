/**
 * JSON-RPC 2.0 over HTTP against the real server: every example of the JSON-RPC 2.0
 * specification (adapted to real methods), the v1 transport decisions, and the error shape.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ErrorCode } from '@switchboard/contract';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError, rawGet, rawPost } from './rpc-helpers';
import { createTestMethods } from './test-methods';

const BODY_LIMIT = 16 * 1024;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: { SWITCHBOARD_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
    extraMethods: createTestMethods().methods,
  });
});
afterAll(async () => {
  await server?.close();
});

const post = (body: string, headers?: Record<string, string | undefined>) => rawPost(server, '/v1/rpc', body, headers);

/** Every error envelope must carry the request's correlation id, which is also the response header. */
function expectError(res: { headers: Headers }, envelope: unknown, code: ErrorCode) {
  expectRpcError(envelope, code, res.headers.get('x-correlation-id'));
}

describe('JSON-RPC 2.0 specification examples', () => {
  test('call with named params returns the result and echoes the id', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": "test.echo", "params": {"text": "subtract", "n": 19}, "id": 3}');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 3, result: { text: 'subtract', n: 19 } });
  });

  test('a notification is executed and answered with no body (HTTP 204)', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": "health.ping", "params": {}}');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  test('a notification of an unknown method still gets no response', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": "foobar"}');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  test('non-existent method', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": "foobar", "id": "1"}');
    expect(res.status).toBe(200);
    expect(res.json.id).toBe('1');
    expect(res.json.error.code).toBe(-32601);
    expectError(res, res.json, 'METHOD_NOT_FOUND');
  });

  test('invalid JSON', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]');
    expect(res.status).toBe(200);
    expect(res.json.id).toBeNull();
    expect(res.json.error.code).toBe(-32700);
    expectError(res, res.json, 'PARSE_ERROR');
    expect(res.json.error.data.details).toEqual({});
    expect(res.json.error.data.retryable).toBe(false);
  });

  test('invalid Request object', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": 1, "params": "bar"}');
    expect(res.json.id).toBeNull();
    expect(res.json.error.code).toBe(-32600);
    expectError(res, res.json, 'INVALID_REQUEST');
  });

  test('batch, invalid JSON: one parse error, not an array', async () => {
    const res = await post(`[
      {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
      {"jsonrpc": "2.0", "method"
    ]`);
    expect(Array.isArray(res.json)).toBe(false);
    expect(res.json.id).toBeNull();
    expectError(res, res.json, 'PARSE_ERROR');
  });

  test('empty array: one Invalid Request, not an array', async () => {
    const res = await post('[]');
    expect(Array.isArray(res.json)).toBe(false);
    expect(res.json.id).toBeNull();
    expectError(res, res.json, 'INVALID_REQUEST');
  });

  test('invalid batch [1]: an array of one Invalid Request', async () => {
    const res = await post('[1]');
    expect(res.json).toHaveLength(1);
    expect(res.json[0].id).toBeNull();
    expectError(res, res.json[0], 'INVALID_REQUEST');
  });

  test('invalid batch [1,2,3]: an array of three Invalid Requests', async () => {
    const res = await post('[1,2,3]');
    expect(res.json).toHaveLength(3);
    for (const entry of res.json) {
      expect(entry.id).toBeNull();
      expect(entry.error.code).toBe(-32600);
      expectError(res, entry, 'INVALID_REQUEST');
    }
  });

  test('mixed batch: results, errors and unknown methods answered; notifications not', async () => {
    const res = await post(`[
      {"jsonrpc": "2.0", "method": "test.echo", "params": {"text": "sum"}, "id": "1"},
      {"jsonrpc": "2.0", "method": "health.ping", "params": {}},
      {"jsonrpc": "2.0", "method": "test.echo", "params": ["positional"], "id": "2"},
      {"foo": "boo"},
      {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
      {"jsonrpc": "2.0", "method": "health.check", "id": "9"}
    ]`);
    expect(res.status).toBe(200);
    expect(res.json).toHaveLength(5);
    const byId = new Map<unknown, any>();
    for (const entry of res.json) if (entry.id !== null) byId.set(entry.id, entry);
    expect(byId.get('1').result).toEqual({ text: 'sum' });
    expectError(res, byId.get('2'), 'INVALID_PARAMS');
    expectError(res, byId.get('5'), 'METHOD_NOT_FOUND');
    expect(byId.get('9').result.status).toMatch(/^(ok|degraded|down)$/);
    const invalid = res.json.filter((e: any) => e.id === null);
    expect(invalid).toHaveLength(1);
    expectError(res, invalid[0], 'INVALID_REQUEST');
  });

  test('batch of notifications only: HTTP 204 with no body', async () => {
    const res = await post(`[
      {"jsonrpc": "2.0", "method": "health.ping", "params": {}},
      {"jsonrpc": "2.0", "method": "test.echo", "params": {"text": "x"}}
    ]`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });
});

describe('ids, params and envelope rules', () => {
  test.each([['a string id with ünïcode'], [''], [0], [42], [-7], [1.5]])('id %j is echoed verbatim', async (id) => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', params: {}, id }));
    expect(res.json.id).toStrictEqual(id);
    expect(res.json.result.ok).toBe(true);
  });

  test('id is echoed on errors too', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'nope', id: 'req-77' }));
    expect(res.json.id).toBe('req-77');
  });

  test('an object id is an Invalid Request answered with id null', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', id: { a: 1 } }));
    expect(res.json.id).toBeNull();
    expectError(res, res.json, 'INVALID_REQUEST');
  });

  test('a missing or wrong jsonrpc member is an Invalid Request that keeps the id', async () => {
    for (const body of [{ method: 'health.ping', id: 'x' }, { jsonrpc: '1.0', method: 'health.ping', id: 'x' }]) {
      const res = await post(JSON.stringify(body));
      expect(res.json.id).toBe('x');
      expectError(res, res.json, 'INVALID_REQUEST');
    }
  });

  test('params: null or a scalar is an Invalid Request', async () => {
    for (const params of [null, 'bar', 3]) {
      const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', params, id: 1 }));
      expectError(res, res.json, 'INVALID_REQUEST');
    }
  });

  test('omitted params count as {}', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', id: 1 }));
    expect(res.json.result.ok).toBe(true);
  });

  test('positional params are INVALID_PARAMS with details.issues', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', params: [], id: 1 }));
    expect(res.json.error.code).toBe(-32602);
    expectError(res, res.json, 'INVALID_PARAMS');
    const { issues } = res.json.error.data.details;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toEqual({ path: '', message: expect.stringContaining('array') });
  });

  test('an unknown params member is INVALID_PARAMS naming it', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', params: { verbose: true }, id: 1 }));
    expectError(res, res.json, 'INVALID_PARAMS');
    expect(res.json.error.data.details.issues).toEqual([{ path: 'verbose', message: expect.stringContaining('verbose') }]);
  });

  test('each invalid member gets its own issue with its path', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'test.echo', params: { n: 'seven', extra: 1 }, id: 1 }));
    expectError(res, res.json, 'INVALID_PARAMS');
    const paths = res.json.error.data.details.issues.map((i: any) => i.path).sort();
    expect(paths).toEqual(['extra', 'n', 'text']);
    for (const issue of res.json.error.data.details.issues) expect(typeof issue.message).toBe('string');
  });

  test('health.subscribe over HTTP gets a clear error pointing to the WebSocket', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.subscribe', params: {}, id: 1 }));
    expectError(res, res.json, 'INVALID_REQUEST');
    expect(res.json.error.message).toContain('/v1/ws');
  });
});

describe('batches', () => {
  const ping = (id: number) => ({ jsonrpc: '2.0', method: 'health.ping', params: {}, id });

  test('100 requests are answered one by one', async () => {
    const res = await post(JSON.stringify(Array.from({ length: 100 }, (_, i) => ping(i))));
    expect(res.json).toHaveLength(100);
    expect(new Set(res.json.map((r: any) => r.id)).size).toBe(100);
    expect(res.json.every((r: any) => r.result?.ok === true)).toBe(true);
  });

  test('over 100 requests is one INVALID_REQUEST', async () => {
    const res = await post(JSON.stringify(Array.from({ length: 101 }, (_, i) => ping(i))));
    expect(Array.isArray(res.json)).toBe(false);
    expectError(res, res.json, 'INVALID_REQUEST');
    expect(res.json.error.data.details).toMatchObject({ max: 100 });
  });
});

describe('the per-method convenience path', () => {
  test('POST /v1/rpc/<method> takes a body without a method member', async () => {
    const res = await rawPost(server, '/v1/rpc/health.ping', JSON.stringify({ jsonrpc: '2.0', id: 'p1', params: {} }));
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 'p1', result: { ok: true, ts: expect.any(String) } });
  });

  test('POST /v1/rpc/<method> takes the same body as /v1/rpc', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'p2', method: 'test.echo', params: { text: 'same' } });
    const [viaPath, viaRoot] = await Promise.all([rawPost(server, '/v1/rpc/test.echo', body), post(body)]);
    expect(viaPath.json).toEqual(viaRoot.json);
    expect(viaPath.json.result).toEqual({ text: 'same' });
  });

  test('a body method that differs from the path is INVALID_REQUEST and keeps the id', async () => {
    const res = await rawPost(server, '/v1/rpc/health.ping', JSON.stringify({ jsonrpc: '2.0', id: 'm1', method: 'health.check' }));
    expect(res.json.id).toBe('m1');
    expectError(res, res.json, 'INVALID_REQUEST');
    expect(res.json.error.message).toContain('does not match');
  });

  test('an unknown method on the path is METHOD_NOT_FOUND', async () => {
    const res = await rawPost(server, '/v1/rpc/no.such', JSON.stringify({ jsonrpc: '2.0', id: 1 }));
    expectError(res, res.json, 'METHOD_NOT_FOUND');
  });

  test('a batch on the per-method path is INVALID_REQUEST', async () => {
    const res = await rawPost(server, '/v1/rpc/health.ping', JSON.stringify([{ jsonrpc: '2.0', id: 1 }]));
    expectError(res, res.json, 'INVALID_REQUEST');
  });
});

describe('HTTP-level errors still carry a JSON-RPC error body', () => {
  test.each([['text/plain'], ['application/x-www-form-urlencoded'], ['']])('content type %j is 415', async (type) => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', id: 1 }), { 'content-type': type });
    expect(res.status).toBe(415);
    expectError(res, res.json, 'INVALID_REQUEST');
    expect(res.json.error.message).toContain('application/json');
  });

  test('application/json with a charset is accepted', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', id: 1 }), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.json.result.ok).toBe(true);
  });

  test('a body over the limit is 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'test.echo', params: { text: 'x'.repeat(BODY_LIMIT) }, id: 1 });
    const res = await post(body);
    expect(res.status).toBe(413);
    expectError(res, res.json, 'PAYLOAD_TOO_LARGE');
    expect(res.json.error.data.details).toEqual({ limit_bytes: BODY_LIMIT });
    expect(res.json.error.data.retryable).toBe(false);
  });

  test('a chunked body (no Content-Length) over the limit is 413 too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(4096));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"text":"'));
        if (sent > BODY_LIMIT * 2) {
          controller.enqueue(new TextEncoder().encode('"}}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent += chunk.length;
      },
    });
    const res = await fetch(server.url + '/v1/rpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expectRpcError(await res.json(), 'PAYLOAD_TOO_LARGE');
  });

  test('a body just under the limit is served', async () => {
    const envelope = { jsonrpc: '2.0', method: 'test.echo', params: { text: '' }, id: 1 };
    const text = 'y'.repeat(BODY_LIMIT - JSON.stringify(envelope).length);
    const res = await post(JSON.stringify({ ...envelope, params: { text } }));
    expect(res.status).toBe(200);
    expect(res.json.result.text).toHaveLength(text.length);
  });

  test('GET /v1/rpc is 405 with Allow: POST', async () => {
    const res = await rawGet(server, '/v1/rpc', { authorization: `Bearer ${server.token}` });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expectError(res, res.json, 'INVALID_REQUEST');
  });

  test('an unknown /v1 route is 404 METHOD_NOT_FOUND', async () => {
    const res = await rawGet(server, '/v1/nothing-here');
    expect(res.status).toBe(404);
    expectError(res, res.json, 'METHOD_NOT_FOUND');
  });

  test('GET /v1/ws without an upgrade is 426', async () => {
    const res = await rawGet(server, '/v1/ws');
    expect(res.status).toBe(426);
    expectError(res, res.json, 'INVALID_REQUEST');
  });
});

describe('correlation ids', () => {
  test('every response has x-correlation-id, success and error alike, and errors repeat it', async () => {
    const responses = await Promise.all([
      post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', id: 1 })),
      post('not json'),
      post(JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', id: 1 }), { authorization: undefined }),
      rawGet(server, '/healthz'),
      rawGet(server, '/readyz'),
      rawGet(server, '/v1/unknown'),
    ]);
    const ids = responses.map((r) => r.headers.get('x-correlation-id'));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(responses[1]!.json.error.data.correlation_id).toBe(ids[1]);
    expect(responses[2]!.json.error.data.correlation_id).toBe(ids[2]);
  });

  test('a well-formed incoming x-correlation-id is kept; a malformed one is replaced', async () => {
    const kept = await post('nope', { 'x-correlation-id': 'client-req-123' });
    expect(kept.headers.get('x-correlation-id')).toBe('client-req-123');
    expect(kept.json.error.data.correlation_id).toBe('client-req-123');
    const replaced = await post('nope', { 'x-correlation-id': 'bad id with spaces <script>' });
    expect(replaced.headers.get('x-correlation-id')).not.toContain(' ');
    expect(replaced.json.error.data.correlation_id).toBe(replaced.headers.get('x-correlation-id'));
  });
});

describe('process probes', () => {
  test('/healthz and /readyz need no token', async () => {
    const live = await rawGet(server, '/healthz');
    expect(live.status).toBe(200);
    expect(live.json).toEqual({ ok: true });
    const ready = await rawGet(server, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ ready: true });
  });
});
