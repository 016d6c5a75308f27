import { afterEach, describe, expect, it } from 'vitest';
import { databaseOf } from '@switchboard/store/testing';
import { DEFAULT_BUNDLE_PATH } from '../runtime';
import { bootFixture, type Fixture } from '../testing/runtime-fixture';
import { runDemoScenario } from './scenario';
import { startSteadyTraffic } from './steady-traffic';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('demo scenario on the support-desk bundle', () => {
  it('produces retries, dead letters, failed parses, decisions and pending items through the real runtime', async () => {
    fx = await bootFixture(DEFAULT_BUNDLE_PATH, { autoStart: true });
    const result = await runDemoScenario(fx.runtime);
    expect(result.published).toBe(30);
    expect(result.approved).toBeGreaterThan(3);
    expect(result.rejected).toBe(1);
    expect(result.pending_mailbox_items).toBeGreaterThan(0);
    expect(result.dead_letters).toBeGreaterThan(0);
    expect(result.retried_deliveries).toBeGreaterThan(0);
    expect(result.failed_parses).toBeGreaterThan(0);
    expect(result.turns).toBeGreaterThan(30);
    const db = databaseOf(fx.store);
    const paymentLogs = await db.selectFrom('logs').select('error_code').where('component', '=', 'mcp.payments').where('level_rank', '>=', 3).execute();
    expect(paymentLogs.length).toBeGreaterThan(0);
    const history = await db.selectFrom('mailbox_history').select('actor_token_id').where('action', '!=', 'created').execute();
    expect(history.every((h) => h.actor_token_id === 'demo')).toBe(true);
    const status = await fx.runtime.status();
    expect(status.pending_deliveries).toBe(0);
    expect(status.active_runs).toBe(0);
  }, 60_000);

  it('steady traffic publishes at its rate until stopped', async () => {
    fx = await bootFixture(DEFAULT_BUNDLE_PATH, { autoStart: true });
    const traffic = startSteadyTraffic(fx.runtime, { ratePerMinute: 1200 });
    // However slow the machine, it keeps publishing until stopped...
    while (traffic.published < 3) await new Promise((r) => setTimeout(r, 10));
    await traffic.stop();
    const after = traffic.published;
    // ...and publishes nothing once stopped: every run there is, was counted before the stop returned.
    await fx.runtime.waitForIdle(20_000);
    expect(traffic.published).toBe(after);
    const roots = await databaseOf(fx.store).selectFrom('runs').select('run_id').execute();
    expect(roots).toHaveLength(after);
  }, 30_000);
});
