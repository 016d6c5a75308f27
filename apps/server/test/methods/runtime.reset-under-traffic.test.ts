/**
 * A reset that works under traffic (issue 36): while ingress is paused the plan's hash covers
 * what the reset decides, not the row counts of tables it empties, so records arriving between
 * preview and apply (handlers finishing, publishes queued) do not make it stale; a refused apply
 * is recorded in the reset audit with its diff; audit records name the actor's token.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { count, fails, ok, waitForQuiet } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
let token: { id: string; name: string };
withControlServer(async (s) => {
  server = s;
  const t = (await server.store.tokens.list())[0]!;
  token = { id: t.id, name: t.name };
});

describe('reset under traffic', () => {
  it('with ingress open a publish between preview and apply is PLAN_STALE, audited as refused with the diff, actor name and whole reason', async () => {
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
    await waitForQuiet(server);
    const preview = await ok(server, 'runtime.nuke', { dry_run: true });
    expect(preview.plan.hash_basis).toBe('state');
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 2 } });
    await waitForQuiet(server);
    const reason = `Refused on purpose: ${'a long reason '.repeat(20)}end`;
    await fails(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string, reason }, 'PLAN_STALE');
    const { resets } = await ok(server, 'runtime.resets', {});
    const refused = resets[0]!;
    expect(refused).toMatchObject({ status: 'refused', reason, actor_token_id: token.id, actor_token_name: token.name });
    expect(refused.result).toMatchObject({ refused: 'PLAN_STALE', expected_plan_hash: preview.plan.plan_hash, diff: { runs: 1, events: 1, deliveries: 1 } });
    expect(await count(server, 'events')).toBeGreaterThan(0);
  });

  it('with ingress paused, records that arrive between preview and apply do not make the plan stale; the reset removes them too', async () => {
    await ok(server, 'runtime.pause', { reason: 'reset under traffic' });
    try {
      const preview = await ok(server, 'runtime.nuke', { dry_run: true });
      expect(preview.plan.hash_basis).toBe('paused_ingress');
      // Traffic keeps arriving (queued while paused), as the steady demo's would.
      for (let n = 0; n < 3; n++) await ok(server, 'event.publish', { event_name: 'tick', payload: { n } });
      const again = await ok(server, 'runtime.nuke', { dry_run: true });
      expect(again.plan.plan_hash).toBe(preview.plan.plan_hash);
      expect((again.plan.remove as Record<string, number>).ingress_queue).toBeGreaterThan((preview.plan.remove as Record<string, number>).ingress_queue!);
      const applied = await ok(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string, reason: 'paused, then previewed' });
      expect(applied).toMatchObject({ status: 'completed', ok: true });
      for (const table of ['events', 'runs', 'ingress_queue']) expect(await count(server, table)).toBe(0);
      const { resets } = await ok(server, 'runtime.resets', {});
      expect(resets[0]).toMatchObject({ status: 'completed', reason: 'paused, then previewed', actor_token_name: token.name });
    } finally {
      if ((await ok(server, 'runtime.status')).ingress === 'paused') await ok(server, 'runtime.resume');
    }
  });
});
