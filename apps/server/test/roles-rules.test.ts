/**
 * The rules around roles that one matrix cell cannot show: batches answer per member, a refused
 * call records nothing under its idempotency key, the last admin stays an admin, a token's secret
 * is shown once, and a narrowed token never gains what its user's role lacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role, Scope } from '@switchboard/contract';
import { snapshotDifferences, snapshotTables } from '@switchboard/store/testing';
import { CONTROL_BUNDLE, count, ok, waitForQuiet } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError, rawPost } from './rpc-helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function person(role: Role, scopes?: Scope[]): Promise<{ userId: string; secret: string }> {
  const { user } = await ok(server, 'user.create', { display_name: `a ${role}`, role });
  const { secret } = await ok(server, 'token.create', { user_id: user.id, name: `${role} token`, ...(scopes ? { scopes } : {}) });
  return { userId: user.id, secret: secret! };
}

async function unchanged<T>(act: () => Promise<T>): Promise<T> {
  await waitForQuiet(server);
  const before = await snapshotTables(server.store);
  const out = await act();
  expect(snapshotDifferences(before, await snapshotTables(server.store))).toEqual([]);
  return out;
}

describe('refusals', () => {
  it('a batch with an allowed and a refused member answers each: the publish happens, the reset does not', async () => {
    const operator = await person('operator');
    const resetsBefore = (await ok(server, 'runtime.resets', {})).resets.length;
    const res = await rawPost(
      server,
      '/v1/rpc',
      JSON.stringify([
        { jsonrpc: '2.0', id: 'publish', method: 'event.publish', params: { event_name: 'tick', payload: { n: 1 } } },
        { jsonrpc: '2.0', id: 'reset', method: 'runtime.nuke', params: { dry_run: false } },
      ]),
      { authorization: `Bearer ${operator.secret}` },
    );
    expect(res.status).toBe(200);
    const members = res.json as { id: string; result?: { event_id: string }; error?: { data: { details: unknown } } }[];
    const byId = Object.fromEntries(members.map((m) => [m.id, m]));
    expect(Object.keys(byId).sort()).toEqual(['publish', 'reset']);
    expect(byId.publish!.result).toMatchObject({ event_id: expect.any(String) });
    expectRpcError(byId.reset, 'FORBIDDEN');
    expect(byId.reset!.error!.data.details).toMatchObject({ required_scope: 'runtime:reset', role: 'operator', needs_role: 'admin' });
    expect(await count(server, 'events', ['event_id', byId.publish!.result!.event_id])).toBe(1);
    expect((await ok(server, 'runtime.resets', {})).resets.length).toBe(resetsBefore);
  });

  it('a refused call with an idempotency_key records nothing: once allowed, the same token and key run the call', async () => {
    const caller = await person('viewer');
    const params = { event_name: 'tick', payload: { n: 2 }, idempotency_key: 'refused-first-then-allowed' };
    const refused = await unchanged(() => server.rpc('event.publish', params, { token: caller.secret }));
    // unchanged(): the idempotency table too holds nothing of it.
    expectRpcError(refused, 'FORBIDDEN');

    await ok(server, 'user.update', { user_id: caller.userId, role: 'operator' });
    const allowed = await server.rpc('event.publish', params, { token: caller.secret });
    expect(allowed.error).toBeUndefined();
    expect(await count(server, 'events', ['event_id', allowed.result!.event_id])).toBe(1);
    // The key now holds that publish: the same call again is its replay, not a second event.
    const ticks = await count(server, 'events', ['event_name', 'tick']);
    const replay = await server.rpc('event.publish', params, { token: caller.secret });
    expect(replay.result).toEqual(allowed.result);
    expect(await count(server, 'events', ['event_name', 'tick'])).toBe(ticks);
  });

  it('a token narrowed beyond its role gets only what the role and the list share', async () => {
    const caller = await person('reviewer', ['read', 'mailbox:decide', 'events:publish', 'runtime:reset', 'users:admin']);
    const session = (await (await fetch(server.url + '/v1/auth/session', { headers: { authorization: `Bearer ${caller.secret}` } })).json()) as { scopes: string[] };
    expect([...session.scopes].sort()).toEqual(['mailbox:decide', 'read']);
    for (const [method, scope] of [['event.publish', 'events:publish'], ['runtime.nuke', 'runtime:reset'], ['user.list', 'users:admin']] as const) {
      const answer = await unchanged(() => server.rpcUnchecked(method, method === 'event.publish' ? { event_name: 'tick', payload: { n: 3 } } : method === 'runtime.nuke' ? { dry_run: true } : {}, { token: caller.secret }));
      expectRpcError(answer, 'FORBIDDEN');
      expect(answer.error.data.details).toMatchObject({ required_scope: scope, role: 'reviewer' });
    }
    // Promoting the user does not widen the token past its own list.
    await ok(server, 'user.update', { user_id: caller.userId, role: 'admin' });
    const widened = (await (await fetch(server.url + '/v1/auth/session', { headers: { authorization: `Bearer ${caller.secret}` } })).json()) as { scopes: string[] };
    expect([...widened.scopes].sort()).toEqual(['events:publish', 'mailbox:decide', 'read', 'runtime:reset', 'users:admin']);
    await ok(server, 'user.update', { user_id: caller.userId, role: 'viewer' });
  });
});

describe('administration', () => {
  it("token.create's secret is in its answer, never in an idempotent replay nor in token.list", async () => {
    const { user } = await ok(server, 'user.create', { display_name: 'Service account', role: 'operator' });
    const params = { user_id: user.id, name: 'publisher', scopes: ['events:publish'] as Scope[], idempotency_key: 'token-once' };
    const first = await ok(server, 'token.create', params);
    expect(first.secret).toMatch(/^sbk_/);
    expect(first.token).toMatchObject({ user_id: user.id, scopes: ['events:publish'], prefix: first.secret!.slice(0, 8) });
    const replay = await server.rpc('token.create', params);
    expect(replay.error).toBeUndefined();
    expect(replay.result!.token.id).toBe(first.token.id);
    expect(replay.result).not.toHaveProperty('secret');
    expect(JSON.stringify(replay)).not.toContain(first.secret!);
    const listed = await ok(server, 'token.list', { user_id: user.id });
    expect(listed.items.map((t) => t.id)).toEqual([first.token.id]);
    expect(JSON.stringify(listed)).not.toContain(first.secret!);
    // The secret works, for what the token was narrowed to.
    expect((await server.rpc('event.publish', { event_name: 'tick', payload: { n: 4 } }, { token: first.secret! })).error).toBeUndefined();
    expect((await server.rpc('health.ping', {}, { token: first.secret! })).error?.data.code).toBe('FORBIDDEN');
  });

  it('the last enabled admin cannot be demoted or disabled; with a second admin, they can', async () => {
    const admins = (await ok(server, 'user.list', {})).items.filter((u) => u.role === 'admin' && !u.disabled);
    // Only the server's own token's user, unless an earlier test promoted someone: demote them first.
    const self = (await (await fetch(server.url + '/v1/auth/session', { headers: { authorization: `Bearer ${server.token}` } })).json()) as { user: { id: string } };
    for (const other of admins.filter((u) => u.id !== self.user.id)) await ok(server, 'user.update', { user_id: other.id, role: 'viewer' });

    for (const change of [{ role: 'operator' as const }, { disabled: true }]) {
      const answer = await unchanged(() => server.rpcUnchecked('user.update', { user_id: self.user.id, ...change }));
      expectRpcError(answer, 'INVALID_PARAMS');
      expect(answer.error.message).toContain('last enabled admin');
    }
    expect((await server.rpc('health.ping', {})).error).toBeUndefined();

    const second = await person('admin');
    const demoted = await ok(server, 'user.update', { user_id: self.user.id, role: 'operator' });
    expect(demoted.user.role).toBe('operator');
    // The demotion applies to the very next request of the demoted admin's token.
    expect((await server.rpc('user.list', {})).error?.data.code).toBe('FORBIDDEN');
    // And the new last admin is protected in turn.
    const last = await server.rpcUnchecked('user.update', { user_id: second.userId, disabled: true }, { token: second.secret });
    expectRpcError(last, 'INVALID_PARAMS');
    expect((await server.rpc('user.update', { user_id: self.user.id, role: 'admin' }, { token: second.secret })).error).toBeUndefined();
  });

  it('a disabled user is refused with UNAUTHENTICATED until enabled again', async () => {
    const caller = await person('operator');
    await ok(server, 'user.update', { user_id: caller.userId, disabled: true });
    expect((await server.rpc('health.ping', {}, { token: caller.secret })).error?.data.code).toBe('UNAUTHENTICATED');
    await ok(server, 'user.update', { user_id: caller.userId, disabled: false });
    expect((await server.rpc('health.ping', {}, { token: caller.secret })).error).toBeUndefined();
  });
});

describe('last seen', () => {
  it("a person's first request marks them seen, with their token's last use", async () => {
    const viewer = await person('viewer');
    const before = (await ok(server, 'user.list', {})).items.find((u) => u.id === viewer.userId)!;
    expect(before.last_seen_at).toBeUndefined();
    await server.rpc('health.ping', {}, { token: viewer.secret });
    // The touch is written beside the request, not before its answer: wait for it.
    await expect
      .poll(async () => (await ok(server, 'user.list', {})).items.find((u) => u.id === viewer.userId)!.last_seen_at, { timeout: 5_000 })
      .toEqual(expect.any(String));
    const [token] = (await ok(server, 'token.list', { user_id: viewer.userId })).items;
    expect(token!.last_used_at).toBe((await ok(server, 'user.list', {})).items.find((u) => u.id === viewer.userId)!.last_seen_at);
  });
});
