/**
 * The audit trail over the real server (both engines): what a publish, a refusal, a failure, a
 * sign-in and an unauthenticated request leave in it, that a publish's record commits with the
 * publish (and not without it), audit.list's filters and pages, and `npm run audit -- verify`
 * naming a row edited behind the server's back.
 */
import { expect, it } from 'vitest';
import type { Result } from '@switchboard/contract';
import { databaseOf, failCommitsWritingEvent, sql, testDatabaseFor } from '@switchboard/store/testing';
import WebSocket from 'ws';
import { auditCli } from '../src/cli/audit';
import { tokenCli } from '../src/cli/token';
import { CONTROL_BUNDLE, count, fails, ok } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { rawPost } from './rpc-helpers';

type AuditItem = Result<'audit.list'>['items'][number];

async function withServer(test: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
  try {
    await test(server);
  } finally {
    await server.close();
  }
}

async function records(server: TestServer, filter: Record<string, unknown> = {}): Promise<AuditItem[]> {
  return (await ok(server, 'audit.list', { limit: 500, ...filter })).items;
}

/** A token of a new person with `role`, made through the API. */
async function tokenFor(server: TestServer, role: 'viewer' | 'operator', name: string): Promise<{ secret: string; userId: string; tokenId: string }> {
  const { user } = await ok(server, 'user.create', { display_name: name, role });
  const { token, secret } = await ok(server, 'token.create', { user_id: user.id, name: `${name}-token` });
  if (!secret) throw new Error('token.create answered without the secret');
  return { secret, userId: user.id, tokenId: token.id };
}

it('a publish is recorded with its actor, channel, targets and a hash of its payload, never the payload', { timeout: 60_000 }, async () => {
  await withServer(async (server) => {
    const published = await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1, secret_note: 'do not store me' }, entity_id: 'counter-1' });
    const [record] = await records(server, { method: 'event.publish' });
    expect(record).toMatchObject({
      channel: 'api',
      method: 'event.publish',
      outcome: 'ok',
      user_name: 'env:SWITCHBOARD_TOKEN',
      token_id: expect.stringMatching(/^tok_/),
      user_id: expect.stringMatching(/^usr_/),
      server_id: server.runtime.serverId,
      correlation_id: expect.any(String),
    });
    expect(record!.target_ids).toEqual(expect.arrayContaining([published.event_id, published.run_id, 'counter-1']));
    expect(record!.params_summary).toMatchObject({ event_name: 'tick', entity_id: 'counter-1', payload: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(JSON.stringify(record)).not.toContain('do not store me');
    // A read is not audited.
    await ok(server, 'health.ping');
    await ok(server, 'event.list', {});
    expect((await records(server)).map((r) => r.method).filter((m) => m === 'health.ping' || m === 'event.list')).toEqual([]);
  });
});

it('refused calls (mutating and reads) and failed calls are recorded with their error codes', { timeout: 60_000 }, async () => {
  await withServer(async (server) => {
    const viewer = await tokenFor(server, 'viewer', 'Vera Viewer');
    const refused = await server.rpc('runtime.pause', { reason: 'not mine to pause' }, { token: viewer.secret });
    expect(refused.error?.data.code).toBe('FORBIDDEN');
    const refusedRead = await server.rpc('user.list', {}, { token: viewer.secret });
    expect(refusedRead.error?.data.code).toBe('FORBIDDEN');
    await fails(server, 'event.publish', { event_name: 'no.such.event', payload: {} }, 'UNKNOWN_EVENT');
    await fails(server, 'runtime.incident_update', { incident_id: 'inc_missing', state: 'acknowledged' }, 'NOT_FOUND');

    const forbidden = await records(server, { outcome: 'FORBIDDEN' });
    expect(forbidden.map((r) => [r.method, r.user_id, r.user_name, r.token_id])).toEqual([
      ['user.list', viewer.userId, 'Vera Viewer', viewer.tokenId],
      ['runtime.pause', viewer.userId, 'Vera Viewer', viewer.tokenId],
    ]);
    expect(forbidden[1]!.params_summary).toEqual({ reason: 'not mine to pause' });
    expect((await records(server, { actor: viewer.userId })).length).toBe(2);
    const errors = await records(server, { outcome: 'error' });
    expect(errors.map((r) => [r.method, r.outcome])).toEqual([
      ['runtime.incident_update', 'NOT_FOUND'],
      ['event.publish', 'UNKNOWN_EVENT'],
      ['user.list', 'FORBIDDEN'],
      ['runtime.pause', 'FORBIDDEN'],
    ]);
    expect(errors[0]!.target_ids).toEqual(['inc_missing']);
    // Nothing paused: the refusal had no effect.
    expect((await ok(server, 'runtime.status')).ingress).toBe('open');
  });
});

it("a publish's record commits with it: when the publish's transaction fails, no ok record is left", { timeout: 60_000 }, async () => {
  await withServer(async (server) => {
    await failCommitsWritingEvent(server.store, 'refused-commit');
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
    const eventsBefore = await count(server, 'events');
    const failed = await server.rpc('event.publish', { event_name: 'tick', payload: { n: 2, note: 'refused-commit' } });
    expect(failed.error).toBeDefined();
    expect(await count(server, 'events')).toBe(eventsBefore);
    const publishes = await records(server, { method: 'event.publish' });
    expect(publishes.map((r) => r.outcome)).toEqual([failed.error!.data.code, 'ok']);
    // The failed publish's record names no event: none was committed.
    expect(publishes[0]!.target_ids).toEqual([]);
    expect((await server.store.audit.verify()).ok).toBe(true);
  });
});

it('UNAUTHENTICATED requests, sign-in, failed sign-in and sign-out are recorded; a presented secret only as a short fingerprint', { timeout: 60_000 }, async () => {
  await withServer(async (server) => {
    const wrongSecret = 'sbk_not_a_real_token_but_someone_typed_it';
    const res = await rawPost(server, '/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'runtime.pause', params: {} }), { authorization: `Bearer ${wrongSecret}` });
    expect(res.status).toBe(401);
    const login = (token: string) => fetch(server.url + '/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify({ token }) });
    expect((await login(wrongSecret)).status).toBe(401);
    const signedIn = await login(server.token);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    await fetch(server.url + '/v1/auth/logout', { method: 'POST', headers: { origin: server.url, cookie } });
    // The console's "am I signed in?" probe without any credentials is not an attempt.
    await fetch(server.url + '/v1/auth/session');

    const all = await records(server);
    expect(JSON.stringify(all)).not.toContain(wrongSecret);
    const byMethod = (m: string) => all.filter((r) => r.method === m);
    const unauthenticated = all.filter((r) => r.outcome === 'UNAUTHENTICATED' && r.method !== 'auth.sign_in_failed');
    expect(unauthenticated).toHaveLength(1);
    expect(unauthenticated[0]).toMatchObject({ channel: 'api', params_summary: { reason: 'unknown or revoked token', presented_secret: expect.stringMatching(/^[0-9a-f]{12}$/) } });
    expect(unauthenticated[0]!.user_id).toBeUndefined();
    expect(byMethod('auth.sign_in_failed')).toMatchObject([{ channel: 'console', outcome: 'UNAUTHENTICATED', params_summary: { reason: 'unknown_token' } }]);
    expect(byMethod('auth.sign_in')).toMatchObject([{ channel: 'console', outcome: 'ok', user_name: 'env:SWITCHBOARD_TOKEN' }]);
    expect(byMethod('auth.sign_out')).toMatchObject([{ channel: 'console', outcome: 'ok', user_name: 'env:SWITCHBOARD_TOKEN' }]);
    expect(byMethod('GET /v1/auth/session')).toEqual([]);
  });
});

it('npm run audit -- verify passes on an intact chain and names the row edited directly in SQL', { timeout: 60_000 }, async () => {
  await withServer(async (server) => {
    for (let i = 0; i < 4; i++) await ok(server, 'event.publish', { event_name: 'tick', payload: { n: i } });
    const databaseUrl = await testDatabaseFor(server.dataDir);
    const env = databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : { SWITCHBOARD_DATA_DIR: server.dataDir };
    const run = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await auditCli(args, env, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
      return { code, out, err };
    };
    const total = (await records(server)).length;
    expect(await run(['verify'])).toMatchObject({ code: 0, out: [`Verified ${total} audit records: the chain is intact.`] });
    const exported = await run(['export', '--method', 'event.publish']);
    expect(exported.code).toBe(0);
    expect(exported.out.map((l) => JSON.parse(l).method)).toEqual(['event.publish', 'event.publish', 'event.publish', 'event.publish']);

    await sql`update audit set outcome = 'ok', params_summary = '{}' where seq = 3`.execute(databaseOf(server.store));
    const broken = await run(['verify']);
    expect(broken.code).toBe(1);
    expect(broken.err.join('\n')).toContain('the chain is broken at record 3: its content does not match its hash (2 records before it verified)');
  });
});

it('the token CLI records create and revoke with channel cli; a refused WebSocket upgrade is recorded', { timeout: 60_000 }, async () => {
  await withServer(async (server) => {
    const databaseUrl = await testDatabaseFor(server.dataDir);
    const env = databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : { SWITCHBOARD_DATA_DIR: server.dataDir };
    const out: string[] = [];
    const io = { out: (l: string) => void out.push(l), err: (l: string) => void out.push(l) };
    expect(await tokenCli(['create', 'cli-made'], env, io)).toBe(0);
    const tokenId = /Created token (tok_[0-9a-f]+)/.exec(out.join('\n'))![1]!;
    expect(await tokenCli(['revoke', tokenId], env, io)).toBe(0);
    const cli = await records(server, { target_id: tokenId });
    expect(cli.map((r) => [r.method, r.channel, r.outcome])).toEqual([
      ['cli.token.revoke', 'cli', 'ok'],
      ['cli.token.create', 'cli', 'ok'],
    ]);
    expect(cli[1]!.params_summary).toMatchObject({ name: 'cli-made' });
    expect(JSON.stringify(cli)).not.toMatch(/sbk_[A-Za-z0-9_-]{20,}/);

    const refused = new WebSocket(server.url.replace('http', 'ws') + '/v1/ws', { headers: { authorization: 'Bearer sbk_wrong_websocket_secret' } });
    const status = await new Promise<number>((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
    const [upgrade] = await records(server, { method: 'ws.upgrade' });
    expect(upgrade).toMatchObject({ channel: 'api', outcome: 'UNAUTHENTICATED', params_summary: { path: '/v1/ws', presented_secret: expect.stringMatching(/^[0-9a-f]{12}$/) } });
  });
});
