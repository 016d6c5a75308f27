/**
 * What clients must never see (stack traces, SQL, internal messages) and what operators must
 * always get: one structured log line per request, tied to the response by its correlation id,
 * never containing a token secret.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness';
import { expectNoStackTrace, expectRpcError, rawGet, rawPost } from './rpc-helpers';
import { SECRET_FAULT_TEXT, createTestMethods } from './test-methods';
import { RpcSocket, tryOpen, wsUrl } from './ws-client';

let server: TestServer;
const bodies: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BODY_LIMIT_BYTES: '2048' }, extraMethods: createTestMethods().methods });
});
afterAll(async () => {
  await server?.close();
});

async function call(method: string, params: unknown = {}, headers: Record<string, string | undefined> = {}) {
  const res = await rawPost(server, '/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), headers);
  bodies.push(res.text);
  return res;
}

const linesFor = (correlationId: string) => server.logs.filter((l) => l.correlation_id === correlationId);
const requestLines = (correlationId: string) => linesFor(correlationId).filter((l) => l.msg === 'request');

describe('handler faults', () => {
  test('a plain Error becomes INTERNAL with a generic message; the log has the detail under the same correlation id', async () => {
    const res = await call('test.plain_fault');
    expectRpcError(res.json, 'INTERNAL', res.headers.get('x-correlation-id'));
    expect(res.json.error.code).toBe(-32603);
    expect(res.json.error.data.retryable).toBe(true);
    expect(res.text).not.toContain('kaboom');
    expect(res.text).not.toContain('/srv/secret');
    expectNoStackTrace(res.text);
    const correlationId = res.json.error.data.correlation_id;
    const fault = linesFor(correlationId).find((l) => l.msg === 'handler fault');
    expect(fault).toMatchObject({ level: 'error', method: 'test.plain_fault', error: SECRET_FAULT_TEXT });
    expect(String(fault!.stack)).toContain('test-methods.ts');
    expect(requestLines(correlationId)).toEqual([expect.objectContaining({ outcome: 'INTERNAL', status: 200 })]);
  });

  test('an SQL error never reaches the client', async () => {
    const res = await call('test.sql_fault');
    expectRpcError(res.json, 'INTERNAL');
    for (const leak of ['no_such_table', 'secret_column', 'select', 'SQLITE', 'Sqlite']) expect(res.text).not.toContain(leak);
    expectNoStackTrace(res.text);
    const fault = linesFor(res.json.error.data.correlation_id).find((l) => l.msg === 'handler fault');
    expect(String(fault?.error)).toContain('no_such_table_xyz');
  });

  test('a result that breaks the contract is INTERNAL, logged with the schema issues', async () => {
    const res = await call('test.bad_result');
    expectRpcError(res.json, 'INTERNAL');
    const line = linesFor(res.json.error.data.correlation_id).find((l) => l.msg === 'result does not match the contract');
    expect(line).toMatchObject({ method: 'test.bad_result', issues: [expect.objectContaining({ path: 'ok' })] });
  });

  test('a result with a member outside its schema is INTERNAL while results are checked', async () => {
    const res = await call('test.extra_member');
    expectRpcError(res.json, 'INTERNAL');
    expect(res.text).not.toContain('internal_column');
    const line = linesFor(res.json.error.data.correlation_id).find((l) => l.msg === 'result does not match the contract');
    expect(line).toMatchObject({ method: 'test.extra_member' });
  });

  test('no error response anywhere carries a stack trace', async () => {
    const more = await Promise.all([
      rawPost(server, '/v1/rpc', '{"broken'),
      rawPost(server, '/v1/rpc', '[1,2]'),
      rawPost(server, '/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test.echo', params: { text: 'x'.repeat(5000) } })),
      rawPost(server, '/v1/rpc', '{}', { 'content-type': 'text/plain' }),
      rawPost(server, '/v1/rpc', '{}', { authorization: 'Bearer nope' }),
      rawPost(server, '/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test.echo', params: { text: 5 } })),
      rawGet(server, '/v1/missing'),
    ]);
    bodies.push(...more.map((r) => r.text));
    expect(bodies.length).toBeGreaterThan(8);
    for (const body of bodies) expectNoStackTrace(body);
  });
});

describe('request log lines', () => {
  test('exactly one line per request, with method, token id, duration, outcome and correlation id', async () => {
    const cases: { id: string; send: () => Promise<unknown>; expected: Record<string, unknown> }[] = [
      { id: 'log-ok', send: () => call('health.ping', {}, { 'x-correlation-id': 'log-ok' }), expected: { method: 'health.ping', outcome: 'ok', status: 200 } },
      { id: 'log-unknown', send: () => call('nope.nope', {}, { 'x-correlation-id': 'log-unknown' }), expected: { method: 'nope.nope', outcome: 'METHOD_NOT_FOUND' } },
      { id: 'log-401', send: () => call('health.ping', {}, { 'x-correlation-id': 'log-401', authorization: undefined }), expected: { outcome: 'UNAUTHENTICATED', status: 401, token_id: null } },
      {
        id: 'log-415',
        send: () => rawPost(server, '/v1/rpc', '{}', { 'x-correlation-id': 'log-415', 'content-type': 'text/plain' }),
        expected: { outcome: 'INVALID_REQUEST', status: 415 },
      },
      {
        id: 'log-413',
        send: () => rawPost(server, '/v1/rpc', 'x'.repeat(4096), { 'x-correlation-id': 'log-413' }),
        expected: { outcome: 'PAYLOAD_TOO_LARGE', status: 413 },
      },
      { id: 'log-parse', send: () => rawPost(server, '/v1/rpc', '{', { 'x-correlation-id': 'log-parse' }), expected: { outcome: 'PARSE_ERROR' } },
      {
        id: 'log-batch',
        send: () =>
          rawPost(server, '/v1/rpc', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'health.ping' }, { jsonrpc: '2.0', id: 2, method: 'nope' }]), { 'x-correlation-id': 'log-batch' }),
        expected: { method: ['health.ping', 'nope'], outcome: 'METHOD_NOT_FOUND' },
      },
      {
        id: 'log-notify',
        send: () => rawPost(server, '/v1/rpc', JSON.stringify({ jsonrpc: '2.0', method: 'health.ping' }), { 'x-correlation-id': 'log-notify' }),
        expected: { method: 'health.ping', outcome: 'ok', status: 204 },
      },
    ];
    for (const c of cases) await c.send();
    const authenticated = server.logs.find((l) => l.correlation_id === 'log-ok')!.token_id;
    expect(authenticated).toMatch(/^tok_/);
    for (const c of cases) {
      const lines = requestLines(c.id);
      expect(lines, c.id).toHaveLength(1);
      expect(lines[0], c.id).toMatchObject({ level: 'info', correlation_id: c.id, duration_ms: expect.any(Number), ...c.expected });
      expect(lines[0]).toHaveProperty('token_id');
      if (c.expected.status !== 401) expect(lines[0]!.token_id, c.id).toBe(authenticated);
    }
  });

  test('the WebSocket upgrade gets a line too, refused or accepted', async () => {
    const refused = await tryOpen(wsUrl(server.url), { headers: { 'x-correlation-id': 'ws-refused' } });
    expect('refused' in refused).toBe(true);
    expect(requestLines('ws-refused')).toEqual([expect.objectContaining({ status: 401, outcome: 'UNAUTHENTICATED', path: '/v1/ws' })]);
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}`, 'x-correlation-id': 'ws-open' } });
    expect(requestLines('ws-open')).toEqual([expect.objectContaining({ status: 101, outcome: 'ok', token_id: expect.stringMatching(/^tok_/) })]);
    await socket.close();
  });

  test('no log line ever contains a token or session secret', async () => {
    const { secret: other } = await server.store.tokens.create('logged-secret-check');
    await call('health.ping', {}, { authorization: `Bearer ${other}` });
    await call('health.ping', {}, { authorization: `Bearer ${other}x` });
    await call('health.ping', {}, { authorization: `Token ${other}` });
    const login = await rawPost(server, '/v1/auth/login', JSON.stringify({ token: other }), { origin: server.url, authorization: undefined });
    expect(login.status).toBe(200);
    const session = /sb_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!;
    await rawPost(server, '/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.ping' }), { authorization: undefined, cookie: `sb_session=${session}`, origin: server.url });
    await rawPost(server, '/v1/auth/login', JSON.stringify({ token: `${other}-wrong` }), { origin: server.url, authorization: undefined });
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${other}` } });
    await socket.call('health.ping', {});
    await socket.close();
    const everything = server.logs.map((l) => JSON.stringify(l)).join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of [server.token, other, session]) expect(everything).not.toContain(secret);
  });
});
