/**
 * runtime.resets (the reset audit trail as a read method) and the runtime.reset notification every
 * subscribed socket receives after a reset, over real HTTP and WebSocket on the control test bundle.
 */
import { describe, expect, it } from 'vitest';
import { RpcSocket, wsUrl } from '../ws-client';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { withControlServer } from './method-servers';

describe('runtime.resets and the reset notification', () => {
  let server: TestServer;
  withControlServer((s) => {
    server = s as TestServer;
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'runtime.resets', { limit: 0 }, 'INVALID_PARAMS');
  });

  it('a reset is announced to every subscribed socket, once per socket, and listed by runtime.resets', async () => {
    const open = () => RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
    const [a, b, idle] = await Promise.all([open(), open(), open()]);
    await a.call('health.subscribe', {});
    await a.call('health.subscribe', {});
    await b.call('health.subscribe', {});
    expect((await ok(server, 'runtime.resets', {})).resets).toEqual([]);

    // The ticks the previous test released may still be dispatching (on PostgreSQL especially): a
    // plan previewed meanwhile would be stale by the apply.
    await waitForQuiet(server);
    const preview = await ok(server, 'runtime.nuke', { dry_run: true });
    const applied = await ok(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string, reason: 'clean slate for the test' });
    const notices = (s: RpcSocket) => s.notifications.filter((n) => n.method === 'runtime.reset');
    await a.waitFor(() => (notices(a).length > 0 ? true : undefined), 1000);
    await b.waitFor(() => (notices(b).length > 0 ? true : undefined), 1000);
    const notice = notices(b)[0]!.params as Record<string, unknown>;
    expect(notice).toMatchObject({ reset_id: applied.reset_id, status: applied.status, reason: 'clean slate for the test', actor_token_id: expect.stringMatching(/^tok_/) });
    // A socket with two subscriptions hears it once; a socket with none does not hear it.
    expect(notices(a)).toHaveLength(1);
    expect(notices(idle)).toHaveLength(0);

    const { resets } = await ok(server, 'runtime.resets', {});
    expect(resets).toHaveLength(1);
    expect(resets[0]).toMatchObject({
      reset_id: applied.reset_id,
      status: 'completed',
      reason: 'clean slate for the test',
      plan_hash: preview.plan.plan_hash,
      actor_token_id: notice.actor_token_id,
    });
    expect(resets[0]!.finished_at! >= resets[0]!.started_at).toBe(true);
    expect(resets[0]!.result).toBeTypeOf('object');
    await Promise.all([a.close(), b.close(), idle.close()]);
  });
});
