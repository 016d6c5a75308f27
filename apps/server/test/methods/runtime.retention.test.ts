/**
 * runtime.retention over real HTTP: the settings as configured, whether passes are scheduled, and
 * the store's size; with every setting at "keep forever" nothing is scheduled.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';
import { fails, ok } from '../control-helpers';

describe('runtime.retention', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('shows the settings, the next pass on this server and the store size; a preview appears as the last preview', async () => {
    const server = await startTestServer({ env: { SWITCHBOARD_RETENTION_HISTORY_DAYS: '14', SWITCHBOARD_RETENTION_BATCH_SIZE: '50', SWITCHBOARD_RETENTION_INTERVAL_S: '600' } });
    servers.push(server);
    await fails(server, 'runtime.retention', { extra: 1 } as never, 'INVALID_PARAMS');
    const status = await ok(server, 'runtime.retention', {});
    expect(status).toMatchObject({
      enabled: true,
      settings: { history_days: 14, dead_letter_days: 90, incident_rollup_days: 400, audit_days: 0, interval_s: 600, batch_size: 50, max_rows_per_second: 5000 },
      storage: { bytes: expect.any(Number), free_bytes: expect.any(Number) },
    });
    expect(status.last_run).toBeUndefined();
    expect(status.running_on).toBeUndefined();
    const next = Date.parse(status.next_run_at!) - Date.now();
    expect(next).toBeGreaterThan(500_000);
    expect(next).toBeLessThanOrEqual(600_000);
    expect(status.storage.reclaim).toBe(server.store.capabilities.sharedByProcesses ? 'reused' : 'incremental');

    const preview = await ok(server, 'runtime.retention_run', { dry_run: true });
    const after = await ok(server, 'runtime.retention', {});
    expect(after.last_preview?.retention_run_id).toBe(preview.run!.retention_run_id);
    expect(after.last_run).toBeUndefined();
  });

  it('with every kind kept forever, retention is off and no pass is scheduled', async () => {
    const server = await startTestServer({ env: { SWITCHBOARD_RETENTION_HISTORY_DAYS: '0', SWITCHBOARD_RETENTION_INCIDENT_DAYS: '0', SWITCHBOARD_RETENTION_AUDIT_DAYS: '0' } });
    servers.push(server);
    const status = await ok(server, 'runtime.retention', {});
    expect(status.enabled).toBe(false);
    expect(status.next_run_at).toBeUndefined();
    expect((await ok(server, 'health.check', {})).retention).toEqual({ enabled: false });
  });
});
