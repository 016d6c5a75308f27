/**
 * The rules around roles that one matrix cell cannot show: batches answer per member, a refused
 * call records nothing under its idempotency key, and a narrowed token never gains what its user's
 * role lacks. The last admin (user.update) and the shown-once secret (token.create) are tested in
 * the method files under methods/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role, Scope } from '@switchboard/contract';
import { CONTROL_BUNDLE, count, ok } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError, rawPost } from './rpc-helpers';
import { addUserWithToken, expectNothingChanged } from './methods/people-fixtures';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const person = (role: Role, scopes?: Scope[]) => addUserWithToken(server, role, scopes);
const unchanged = <T>(act: () => Promise<T>) => expectNothingChanged(server, act);

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
