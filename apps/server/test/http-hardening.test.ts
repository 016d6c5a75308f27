/**
 * The HTTP transport under hostile or clumsy clients: an over-limit body on a keep-alive
 * connection, malformed percent-encodings, slow bodies, cross-origin logout, and the security
 * headers of every kind of response.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';

const BODY_LIMIT = 2048;
const MIB = 1024 * 1024;
const REQUEST_TIMEOUT_MS = 1500;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: { SWITCHBOARD_BODY_LIMIT_BYTES: String(BODY_LIMIT), SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), SWITCHBOARD_HTTP_HEADERS_TIMEOUT_MS: '1000' },
  });
});
afterAll(() => server.close());

/** Opens a raw connection and collects everything the server sends until it closes the socket. */
function rawConnection(target: TestServer = server): { socket: net.Socket; received: () => string; closed: Promise<number> } {
  const { port } = new URL(target.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d.toString()));
  const openedAt = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - openedAt)));
  socket.on('error', () => undefined);
  return { socket, received: () => data, closed };
}

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.ping' });

/**
 * Sends an over-limit request, waits for its 413, then sends a ping as a keep-alive client would:
 * on the same socket, unless the 413 said Connection: close. The ping must be answered.
 */
async function expectNextRequestAnswered(overLimitRequest: string, target: TestServer = server): Promise<void> {
  let conn = rawConnection(target);
  conn.socket.write(overLimitRequest);
  await expect.poll(() => conn.received()).toMatch(/PAYLOAD_TOO_LARGE/);
  if (/\r\nconnection: close\r\n/i.test(conn.received())) {
    await conn.closed;
    conn = rawConnection(target);
  }
  const before = conn.received().length;
  conn.socket.write(`POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.token}\r\nContent-Type: application/json\r\nContent-Length: ${ping.length}\r\n\r\n${ping}`);
  await expect.poll(() => conn.received().slice(before), { timeout: 3000 }).toMatch(/HTTP\/1\.1 200[\s\S]*"result"/);
  conn.socket.end();
}

/** A JSON-RPC POST whose body of `bytes` bytes goes in 64 KiB chunks with no Content-Length. */
function chunkedRequest(target: TestServer, bytes: number): string {
  const chunkSize = 64 * 1024;
  const chunks: string[] = [];
  for (let left = bytes; left > 0; left -= chunkSize) {
    const size = Math.min(chunkSize, left);
    chunks.push(`${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`);
  }
  return `POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks.join('')}0\r\n\r\n`;
}

describe('a body over the limit on a keep-alive connection', () => {
  it('is answered 413 with Connection: close, and the socket is closed after the answer', async () => {
    const conn = rawConnection();
    conn.socket.write(
      `POST /v1/rpc HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${BODY_LIMIT + 1}\r\n\r\n`,
    );
    await conn.closed;
    const head = conn.received().split('\r\n\r\n')[0]!.toLowerCase();
    expect(head).toMatch(/^http\/1\.1 413/);
    expect(head).toContain('connection: close');
    expect(conn.received()).toContain('PAYLOAD_TOO_LARGE');
  });

  it('does not break a keep-alive client: the request after a 413 gets its answer', async () => {
    const body = 'x'.repeat(BODY_LIMIT + 1);
    await expectNextRequestAnswered(`POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  });

  it('answers an over-limit chunked body 413 with Connection: close, and closes the socket', async () => {
    const conn = rawConnection();
    const chunk = 'x'.repeat(BODY_LIMIT + 10);
    conn.socket.write(
      `POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    await expect.poll(() => conn.received()).toMatch(/PAYLOAD_TOO_LARGE/);
    await conn.closed;
    expect(conn.received().split('\r\n\r\n')[0]!.toLowerCase()).toContain('connection: close');
  });

  it('does not leave a dead socket after a chunked body far over the limit: it says Connection: close or answers the next request', async () => {
    // 1.5 MiB in 64 KiB chunks: far more than one socket read, so the server stops reading mid-body.
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = Array.from({ length: 24 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    await expectNextRequestAnswered(
      `POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`,
    );
  });
});

describe('a chunked body over the default 1 MiB limit', () => {
  // The default limit, so the body is many socket reads long and still on the wire when the 413 goes out.
  let defaultLimitServer: TestServer;
  beforeAll(async () => {
    defaultLimitServer = await startTestServer();
  });
  afterAll(() => defaultLimitServer.close());

  for (const [label, bytes] of [
    ['1.1 MiB', 1.1 * MIB],
    ['1.5 MiB', 1.5 * MIB],
    ['4 MiB', 4 * MIB],
  ] as const) {
    it(`${label}: 413, then the next request on the socket is answered, or the 413 said Connection: close and the socket closes`, async () => {
      await expectNextRequestAnswered(chunkedRequest(defaultLimitServer, Math.floor(bytes)), defaultLimitServer);
    });
  }
});

describe('malformed percent-encodings', () => {
  for (const pathname of ['/%', '/%zz', '/assets/%E0%A4%A', '/events/%', '/v1/rpc/%']) {
    it(`GET ${pathname} is a 4xx, never an internal error`, async () => {
      const res = await fetch(server.url + pathname, { headers: { authorization: `Bearer ${server.token}` } });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await res.text()).not.toMatch(/INTERNAL|Internal error/);
    });
  }
});

describe('server timeouts', () => {
  it('closes a connection whose body stalls, at the configured request timeout', async () => {
    const conn = rawConnection();
    conn.socket.write(
      `POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
    );
    const lifetime = await conn.closed;
    expect(lifetime).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(lifetime).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
  });
});

describe('browser session routes', () => {
  it('refuses a cross-origin logout and keeps the session', async () => {
    const login = await fetch(server.url + '/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ token: server.token }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const crossOrigin = await fetch(server.url + '/v1/auth/logout', { method: 'POST', headers: { cookie, origin: 'https://evil.example' } });
    expect(crossOrigin.status).toBe(401);
    const session = await fetch(server.url + '/v1/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    const sameOrigin = await fetch(server.url + '/v1/auth/logout', { method: 'POST', headers: { cookie, origin: server.url } });
    expect(sameOrigin.status).toBe(200);
    expect((await fetch(server.url + '/v1/auth/session', { headers: { cookie } })).status).toBe(401);
  });
});

describe('security headers', () => {
  it('marks JSON answers nosniff', async () => {
    const rpc = await server.post('/v1/rpc', ping);
    expect(rpc.headers.get('x-content-type-options')).toBe('nosniff');
    const probe = await fetch(server.url + '/healthz');
    expect(probe.headers.get('x-content-type-options')).toBe('nosniff');
    const unauthenticated = await fetch(server.url + '/v1/rpc', { method: 'POST', body: ping, headers: { 'content-type': 'application/json' } });
    expect(unauthenticated.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
