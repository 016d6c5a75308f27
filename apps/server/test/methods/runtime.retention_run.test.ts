/**
 * runtime.retention_run over real HTTP: a preview counts and removes nothing (beyond its own
 * record), a pass then removes exactly what the preview counted, whole runs only; the call needs
 * the admin's runtime:reset scope, says dry_run explicitly, and is audited; health.check and
 * runtime.retention then show the pass.
 */
import { databaseOf, snapshotDifferences, snapshotTables } from '@switchboard/store/testing';
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { expectRpcError } from '../rpc-helpers';
import { withControlServer } from './method-servers';
import { addUserWithToken } from './people-fixtures';

const SIXTY_DAYS_AGO = () => new Date(Date.now() - 60 * 86_400_000).toISOString();

describe('runtime.retention_run', () => {
  let server: TestServer;
  withControlServer((s) => {
    server = s as TestServer;
  });

  it('refuses a call that does not say dry_run, and anyone below admin', async () => {
    const refused = await fails(server, 'runtime.retention_run', {}, 'INVALID_PARAMS');
    expect(JSON.stringify(refused)).toContain('dry_run is required');
    const { secret } = await addUserWithToken(server, 'operator');
    const answer = await server.rpc('runtime.retention_run', { dry_run: true }, { token: secret });
    expectRpcError(answer, 'FORBIDDEN');
  });

  it('previews, then removes what the preview counted: old settled runs whole, recent ones kept', async () => {
    const runs: string[] = [];
    for (let n = 0; n < 3; n++) runs.push((await ok(server, 'event.publish', { event_name: 'tick', payload: { n } })).run_id);
    await waitForQuiet(server);
    const db = databaseOf(server.store);
    const [old1, old2, recent] = runs as [string, string, string];
    await db.updateTable('runs').set({ settled_at: SIXTY_DAYS_AGO() }).where('run_id', 'in', [old1, old2]).execute();
    const eventsOf = async (runId: string) => Number((await db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow()).n);
    const deliveriesOf = async (runId: string) => Number((await db.selectFrom('deliveries').select((eb) => eb.fn.countAll().as('n')).where('run_id', '=', runId).executeTakeFirstOrThrow()).n);
    const expectedEvents = (await eventsOf(old1)) + (await eventsOf(old2));
    const expectedDeliveries = (await deliveriesOf(old1)) + (await deliveriesOf(old2));

    const before = await snapshotTables(server.store, { without: ['retention_runs', 'retention_lease'] });
    const preview = await ok(server, 'runtime.retention_run', { dry_run: true });
    expect(snapshotDifferences(before, await snapshotTables(server.store, { without: ['retention_runs', 'retention_lease'] }))).toEqual([]);
    expect(preview).toMatchObject({ ran: true, run: { dry_run: true, trigger: 'manual', status: 'completed', removed: { runs: 2, events: expectedEvents, deliveries: expectedDeliveries } } });
    expect(preview.run!.cutoffs.history).toBeDefined();

    const pass = await ok(server, 'runtime.retention_run', { dry_run: false });
    expect(pass).toMatchObject({ ran: true, run: { dry_run: false, status: 'completed' } });
    expect(pass.run!.removed).toEqual(preview.run!.removed);
    expect(pass.storage_before!.bytes).toBeGreaterThan(0);
    expect(pass.storage_after!.bytes).toBeGreaterThan(0);
    for (const gone of [old1, old2]) {
      expect(await eventsOf(gone)).toBe(0);
      expect(await deliveriesOf(gone)).toBe(0);
      await fails(server, 'run.get', { run_id: gone }, 'NOT_FOUND');
    }
    expect((await ok(server, 'run.get', { run_id: recent })).run.run_id).toBe(recent);

    const status = await ok(server, 'runtime.retention', {});
    expect(status.last_run!.retention_run_id).toBe(pass.run!.retention_run_id);
    expect(status.last_preview!.retention_run_id).toBe(preview.run!.retention_run_id);
    const health = await ok(server, 'health.check', {});
    expect(health.retention).toMatchObject({ enabled: true, last_run: { retention_run_id: pass.run!.retention_run_id, removed: { runs: 2 } } });
    expect(Date.parse(health.retention!.next_run_at!)).toBeGreaterThan(Date.now());

    const audited = await ok(server, 'audit.list', { method: 'runtime.retention_run', limit: 10 });
    expect(audited.items.map((r) => r.outcome)).toEqual(expect.arrayContaining(['ok', 'FORBIDDEN']));
  });
});
