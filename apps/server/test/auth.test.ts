/**
 * Bearer tokens and browser session cookies on HTTP and on the WebSocket upgrade (v1-decisions,
 * Authentication): 401 + WWW-Authenticate + UNAUTHENTICATED for every bad credential, the Origin
 * check for cookies, logout, and revocation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError, rawGet, rawPost } from './rpc-helpers';
import { RpcSocket, tryOpen, wsUrl } from './ws-client';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const PING = JSON.stringify({ jsonrpc: '2.0', method: 'health.ping', params: {}, id: 1 });
const FOREIGN = 'http://evil.example';

async function newToken(name: string): Promise<{ id: string; secret: string }> {
  const { token, secret } = await server.store.tokens.create(name);
  return { id: token.id, secret };
}

function expect401(res: { status: number; headers: Headers; json: any }) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(res.json.id).toBeNull();
  expect(res.json.error.code).toBe(-32001);
  expectRpcError(res.json, 'UNAUTHENTICATED', res.headers.get('x-correlation-id'));
}

/** `origin: null` sends no Origin header at all. */
async function login(secret: string, origin: string | null = server.url) {
  const res = await fetch(server.url + '/v1/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    body: JSON.stringify({ token: secret }),
  });
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = /sb_session=[^;]*/.exec(setCookie)?.[0];
  return { res, json: await res.json(), setCookie, cookie };
}

const badCredentials = async (): Promise<[string, Record<string, string>][]> => {
  const revoked = await newToken('to-revoke');
  await server.store.tokens.revoke(revoked.id);
  return [
    ['missing', {}],
    ['not bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['bearer without token', { authorization: 'Bearer' }],
    ['bearer with two words', { authorization: `Bearer ${server.token} extra` }],
    ['unknown', { authorization: 'Bearer sbk_this_token_does_not_exist_000' }],
    ['revoked', { authorization: `Bearer ${revoked.secret}` }],
  ];
};

describe('bearer tokens on HTTP', () => {
  test('a valid token works', async () => {
    const res = await rawPost(server, '/v1/rpc', PING);
    expect(res.status).toBe(200);
    expect(res.json.result.ok).toBe(true);
  });

  test('every bad credential gets 401, WWW-Authenticate: Bearer and UNAUTHENTICATED, on every authenticated route', async () => {
    for (const [label, headers] of await badCredentials()) {
      for (const path of ['/v1/rpc', '/v1/rpc/health.ping']) {
        const res = await rawPost(server, path, PING, { authorization: undefined, ...headers });
        expect(res.status, `${label} on ${path}`).toBe(401);
        expect401(res);
      }
      const doc = await rawGet(server, '/v1/openrpc.json', headers);
      expect(doc.status, `${label} on openrpc.json`).toBe(401);
      expect401(doc);
      const session = await rawGet(server, '/v1/auth/session', headers);
      expect401(session);
    }
  });

  test('authentication runs before content checks: no token and a bad body is still 401', async () => {
    const res = await rawPost(server, '/v1/rpc', 'not json', { authorization: undefined, 'content-type': 'text/plain' });
    expect401(res);
  });

  test('a token revoked while in use is refused on the next request', async () => {
    const token = await newToken('soon-revoked');
    const auth = { authorization: `Bearer ${token.secret}` };
    expect((await rawPost(server, '/v1/rpc', PING, auth)).status).toBe(200);
    expect(await server.store.tokens.revoke(token.id)).toBe(true);
    expect401(await rawPost(server, '/v1/rpc', PING, auth));
  });

  test('the probes need no token', async () => {
    expect((await rawGet(server, '/healthz')).status).toBe(200);
    expect((await rawGet(server, '/readyz')).status).toBe(200);
  });
});

describe('bearer tokens on the WebSocket upgrade', () => {
  test('every bad credential gets HTTP 401 with a JSON-RPC error body and no 101', async () => {
    for (const [label, headers] of await badCredentials()) {
      const outcome = await tryOpen(wsUrl(server.url), { headers });
      expect('refused' in outcome, label).toBe(true);
      if (!('refused' in outcome)) continue;
      expect(outcome.refused.status).toBe(401);
      expect(outcome.refused.headers['www-authenticate']).toBe('Bearer');
      const body = JSON.parse(outcome.refused.body);
      expectRpcError(body, 'UNAUTHENTICATED', outcome.refused.headers['x-correlation-id'] as string);
    }
  });

  test('a valid bearer token opens the socket', async () => {
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
    expect((await socket.call('health.ping', {})).result!.ok).toBe(true);
    await socket.close();
  });

  test('an upgrade on another path is 404', async () => {
    const outcome = await tryOpen(server.url.replace(/^http/, 'ws') + '/v1/other', { headers: { authorization: `Bearer ${server.token}` } });
    expect('refused' in outcome && outcome.refused.status).toBe(404);
  });

  test('revoking a token does not close its open socket (the spec checks tokens only at the upgrade)', async () => {
    const token = await newToken('ws-then-revoked');
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${token.secret}` } });
    await server.store.tokens.revoke(token.id);
    expect((await socket.call('health.ping', {})).result!.ok).toBe(true);
    const again = await tryOpen(wsUrl(server.url), { headers: { authorization: `Bearer ${token.secret}` } });
    expect('refused' in again && again.refused.status).toBe(401);
    await socket.close();
  });
});

describe('browser session cookies', () => {
  test('login from this origin sets an httpOnly, SameSite=Strict session cookie', async () => {
    const { res, json, setCookie, cookie } = await login(server.token);
    expect(res.status).toBe(200);
    expect(json).toEqual({
      ok: true,
      token: { id: expect.stringMatching(/^tok_/), name: 'env:SWITCHBOARD_TOKEN' },
      user: { id: expect.stringMatching(/^usr_/), display_name: 'env:SWITCHBOARD_TOKEN', role: 'admin' },
      scopes: expect.arrayContaining(['read', 'runtime:reset', 'users:admin']),
      via: 'cookie',
    });
    expect(cookie).toBeDefined();
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toContain(server.token);
  });

  test('login without an Origin, or from a foreign one, is refused with no cookie', async () => {
    for (const origin of [null, FOREIGN, 'null']) {
      const { res, json, cookie } = await login(server.token, origin);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expectRpcError(json, 'UNAUTHENTICATED');
      expect(cookie).toBeUndefined();
    }
  });

  test('login with an unknown, revoked or missing token is refused', async () => {
    const revoked = await newToken('revoked-before-login');
    await server.store.tokens.revoke(revoked.id);
    for (const secret of ['sbk_unknown_token_value_1234567', revoked.secret, '', '   ']) {
      const { res, json, cookie } = await login(secret);
      expect(res.status).toBe(401);
      expectRpcError(json, 'UNAUTHENTICATED');
      expect(cookie).toBeUndefined();
    }
  });

  test('login checks the content type and parses the body safely', async () => {
    const wrongType = await rawPost(server, '/v1/auth/login', JSON.stringify({ token: server.token }), { origin: server.url, 'content-type': 'text/plain', authorization: undefined });
    expect(wrongType.status).toBe(415);
    const notJson = await rawPost(server, '/v1/auth/login', '{token', { origin: server.url, authorization: undefined });
    expectRpcError(notJson.json, 'PARSE_ERROR');
  });

  test('cookie-authenticated RPC works from this origin and is refused from a foreign or missing origin', async () => {
    const { cookie } = await login(server.token);
    const same = await rawPost(server, '/v1/rpc', PING, { authorization: undefined, cookie: cookie!, origin: server.url });
    expect(same.status).toBe(200);
    expect(same.json.result.ok).toBe(true);
    for (const origin of [FOREIGN, undefined, server.url.replace('127.0.0.1', 'localhost')]) {
      const res = await rawPost(server, '/v1/rpc', PING, { authorization: undefined, cookie: cookie!, origin });
      expect401(res);
    }
  });

  test('a same-origin GET without Origin (what browsers send) reads the session; a cross-site one does not', async () => {
    const { cookie } = await login(server.token);
    const plain = await rawGet(server, '/v1/auth/session', { cookie: cookie! });
    expect(plain.status).toBe(200);
    expect(plain.json).toMatchObject({ token: { id: expect.any(String), name: 'env:SWITCHBOARD_TOKEN' }, user: { role: 'admin' }, via: 'cookie' });
    const sameSite = await rawGet(server, '/v1/auth/session', { cookie: cookie!, 'sec-fetch-site': 'same-origin' });
    expect(sameSite.status).toBe(200);
    const crossSite = await rawGet(server, '/v1/auth/session', { cookie: cookie!, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(401);
    const foreign = await rawGet(server, '/v1/auth/session', { cookie: cookie!, origin: FOREIGN });
    expect(foreign.status).toBe(401);
  });

  test('cookie-authenticated WebSocket upgrade works from this origin and is refused from a foreign or missing one', async () => {
    const { cookie } = await login(server.token);
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { cookie: cookie! }, origin: server.url });
    expect((await socket.call('health.ping', {})).result!.ok).toBe(true);
    await socket.close();
    for (const options of [{ headers: { cookie: cookie! }, origin: FOREIGN }, { headers: { cookie: cookie! } }]) {
      const outcome = await tryOpen(wsUrl(server.url), options);
      expect('refused' in outcome && outcome.refused.status).toBe(401);
    }
  });

  test('logout ends the session and clears the cookie', async () => {
    const { cookie } = await login(server.token);
    const headers = { authorization: undefined, cookie: cookie!, origin: server.url };
    expect((await rawPost(server, '/v1/rpc', PING, headers)).status).toBe(200);
    const out = await rawPost(server, '/v1/auth/logout', '{}', headers);
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/sb_session=;/);
    expect401(await rawPost(server, '/v1/rpc', PING, headers));
    const ws = await tryOpen(wsUrl(server.url), { headers: { cookie: cookie! }, origin: server.url });
    expect('refused' in ws && ws.refused.status).toBe(401);
  });

  test('revoking a token ends its cookie sessions for new requests, but not its open sockets', async () => {
    const token = await newToken('browser');
    const { cookie } = await login(token.secret);
    const headers = { authorization: undefined, cookie: cookie!, origin: server.url };
    expect((await rawPost(server, '/v1/rpc', PING, headers)).status).toBe(200);
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { cookie: cookie! }, origin: server.url });
    await server.store.tokens.revoke(token.id);
    expect401(await rawPost(server, '/v1/rpc', PING, headers));
    expect((await rawGet(server, '/v1/auth/session', { cookie: cookie! })).status).toBe(401);
    const again = await tryOpen(wsUrl(server.url), { headers: { cookie: cookie! }, origin: server.url });
    expect('refused' in again && again.refused.status).toBe(401);
    expect((await socket.call('health.ping', {})).result!.ok).toBe(true);
    await socket.close();
  });

  test('a forged session cookie is refused', async () => {
    const res = await rawPost(server, '/v1/rpc', PING, { authorization: undefined, cookie: 'sb_session=forged', origin: server.url });
    expect401(res);
  });
});
