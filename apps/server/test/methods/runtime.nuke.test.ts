/**
 * runtime.nuke over real HTTP: dry run previews and changes nothing, apply removes run-scoped
 * records and keeps tokens and idempotency records, partial failures are reported (a container
 * that will not stop, a quiescence that runs out of time), the reset lock refuses a second reset
 * and mutations, PLAN_STALE guards an apply against a stale preview, and replays are idempotent.
 * The method never acts on an empty call (dry_run must be said), and a reset works under traffic
 * (issue 36): while ingress is paused the plan's hash covers what the reset decides, not the row
 * counts of tables it empties, so records arriving between preview and apply do not make it stale;
 * a refused apply is recorded in the reset audit with its diff; audit records name the actor's token.
 */
import fs from 'node:fs';
import { databaseOf } from '@switchboard/store/testing';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDockerEngine, type FakeDockerEngine } from '../../../../packages/runtime/test/fake-docker-engine';
import { startTestServer, type TestServer } from '../harness';
import { withControlServer } from './method-servers';
import { CONTROL_BUNDLE, count, expectSameStore, fails, ok, openOrderItem, pidAlive, storeSnapshot, waitForQuiet } from '../control-helpers';

const RUN_SCOPED = ['runs', 'events', 'deliveries', 'dead_letters', 'entities', 'mailbox_items', 'mailbox_history', 'conversations', 'turns', 'ingress_queue'];

async function runScopedCounts(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of RUN_SCOPED) out[t] = await count(server, t);
  return out;
}

async function containerFor(server: TestServer, entityId: string) {
  let row: any;
  await expect.poll(async () => {
    row = await databaseOf(server.store).selectFrom('containers').selectAll().where('entity_id', '=', entityId).executeTakeFirst();
    return row?.status === 'running';
  }, { timeout: 10_000, message: `a running container for ${entityId}` }).toBe(true);
  return row as { container_id: string; pid: number | null; entity_id: string };
}

async function readyz(server: TestServer): Promise<number> {
  return (await fetch(server.url + '/readyz')).status;
}

let keySeq = 0;
const newKey = () => `nuke-${Date.now()}-${++keySeq}`;

describe('with local child-process containers', () => {
  let server: TestServer;
  let tokenId: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    tokenId = (await server.store.tokens.list())[0]!.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('dry run returns the full shape with previews from each owner and changes nothing', async () => {
    const item = await openOrderItem(server, 'D1');
    const container = await containerFor(server, item.entity_id);
    await waitForQuiet(server);
    const before = await storeSnapshot(server);

    const result = await ok(server, 'runtime.nuke', { dry_run: true });
    expect(result).toMatchObject({ dry_run: true, ok: true, partial_failure: false, status: 'dry_run', operation_name: expect.any(String) });
    expect(result).not.toHaveProperty('errors');
    expect(result.plan.plan_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.plan.remove).toMatchObject({ runs: before.runs!.length, events: before.events!.length, mailbox_items: 1, entities: 1 });
    expect(result.plan.keep).toMatchObject({ tokens: 1, bundle: { name: 'control-test' } });
    expect(result.plan.containers_to_stop).toEqual({ count: 1, container_ids: [container.container_id] });
    expect(result.quiescence).toMatchObject({ ingress: 'open', would_pause_ingress: true });
    expect(result.cleanup.would_delete).toEqual(result.plan.remove);
    expect(result.containers.would_stop).toEqual([expect.objectContaining({ container_id: container.container_id, entity_id: item.entity_id })]);

    expectSameStore(before, await storeSnapshot(server));
    expect(pidAlive(container.pid!)).toBe(true);
    // The same state previews to the same plan hash.
    expect((await ok(server, 'runtime.nuke', { dry_run: true })).plan.plan_hash).toBe(result.plan.plan_hash);
  });

  it('apply removes run-scoped records, stops containers, keeps tokens and idempotency records, and audits the reset', async () => {
    const item = await openOrderItem(server, 'P1');
    const container = await containerFor(server, item.entity_id);
    const publishKey = newKey();
    const keptPublish = await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 }, idempotency_key: publishKey });
    await waitForQuiet(server);
    // A paused runtime with a queued publish: the reset clears the queue and leaves ingress open.
    await ok(server, 'runtime.pause');
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 2 } });
    const tokensBefore = await server.store.tokens.list();
    const idempotencyBefore = await count(server, 'idempotency');

    const result = await ok(server, 'runtime.nuke', { dry_run: false, reason: 'fresh start for the demo' });
    expect(result).toMatchObject({ dry_run: false, ok: true, partial_failure: false, status: 'completed', reset_id: expect.stringMatching(/^reset_/) });
    expect(result).not.toHaveProperty('errors');
    expect(result.plan.lock).toBe('held');
    expect(result.quiescence).toMatchObject({ drained: true, ingress_before: 'paused', ingress_after: 'open' });
    expect((result.cleanup.deleted as Record<string, number>).runs).toBeGreaterThan(0);
    expect(result.containers.stopped).toContain(container.container_id);
    expect(result.containers.failed).toEqual([]);

    expect(await runScopedCounts(server)).toEqual(Object.fromEntries(RUN_SCOPED.map((t) => [t, 0])));
    expect(await count(server, 'containers')).toBe(0);
    expect(pidAlive(container.pid!)).toBe(false);
    expect(await server.store.tokens.list()).toEqual(tokensBefore.map((t) => ({ ...t, last_used_at: expect.anything() })));
    expect(await count(server, 'idempotency')).toBeGreaterThanOrEqual(idempotencyBefore);
    // Kept idempotency records still answer replays.
    expect(await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 }, idempotency_key: publishKey })).toEqual(keptPublish);

    const audit = await databaseOf(server.store).selectFrom('resets').selectAll().where('reset_id', '=', result.reset_id!).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ status: 'completed', reason: 'fresh start for the demo', actor_token_id: tokenId, plan_hash: result.plan.plan_hash, finished_at: expect.any(String) });
    expect(JSON.parse(audit.result!)).toEqual(result);

    // Ready for new publishes: a new order runs, opens its item and gets a container.
    expect(await readyz(server)).toBe(200);
    expect(await ok(server, 'runtime.status')).toMatchObject({ ingress: 'open', queue_depth: 0, reset_in_progress: false });
    const fresh = await openOrderItem(server, 'P2');
    await containerFor(server, fresh.entity_id);
    await waitForQuiet(server);
  });

  it('a dry run, then a publish, then apply with the dry run plan_hash: PLAN_STALE and nothing changes', async () => {
    await waitForQuiet(server);
    const preview = await ok(server, 'runtime.nuke', { dry_run: true });
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 3 } });
    await waitForQuiet(server);
    // Only the refusal's own audit record (and its change feed row) is written; see 'reset under traffic' below.
    const before = await storeSnapshot(server, { without: ['resets', 'changes'] });
    const error = await fails(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash }, 'PLAN_STALE');
    expect(error.data.details).toEqual({ expected: preview.plan.plan_hash, actual: expect.stringMatching(/^sha256:/) });
    expect(error.data.details.actual).not.toBe(preview.plan.plan_hash);
    expect(error.data.retryable).toBe(false);
    expectSameStore(before, await storeSnapshot(server, { without: ['resets', 'changes'] }));
    expect(await readyz(server)).toBe(200);

    // With a fresh preview the apply goes through.
    const fresh = await ok(server, 'runtime.nuke', { dry_run: true });
    const applied = await ok(server, 'runtime.nuke', { dry_run: false, expected_plan_hash: fresh.plan.plan_hash as string });
    expect(applied).toMatchObject({ status: 'completed', ok: true });
    expect(applied.plan.plan_hash).toBe(fresh.plan.plan_hash);
  });

  it('replays apply and dry run by idempotency key; a different body conflicts', async () => {
    await openOrderItem(server, 'I1');
    await waitForQuiet(server);
    const dryKey = newKey();
    const dry = await ok(server, 'runtime.nuke', { dry_run: true, idempotency_key: dryKey });
    expect(await ok(server, 'runtime.nuke', { dry_run: true, idempotency_key: dryKey })).toEqual(dry);

    const key = newKey();
    const first = await ok(server, 'runtime.nuke', { dry_run: false, reason: 'r', idempotency_key: key });
    const resets = await count(server, 'resets');
    const replay = await ok(server, 'runtime.nuke', { dry_run: false, reason: 'r', idempotency_key: key });
    expect(replay).toEqual(first);
    expect(await count(server, 'resets')).toBe(resets);
    const conflict = await fails(server, 'runtime.nuke', { reason: 'r', dry_run: true, idempotency_key: key }, 'IDEMPOTENCY_CONFLICT');
    expect(conflict.data.details.idempotency_key).toBe(key);
  });

  it('validates params', async () => {
    await fails(server, 'runtime.nuke', { dry_run: 'yes' }, 'INVALID_PARAMS');
    await fails(server, 'runtime.nuke', { dry_run: false, everything: true }, 'INVALID_PARAMS');
    await fails(server, 'runtime.nuke', { dry_run: false, reason: 'x'.repeat(2001) }, 'INVALID_PARAMS');
  });

  it('nuke during active dispatch waits for the running handler, then removes everything', async () => {
    await ok(server, 'event.publish', { event_name: 'slow.work', payload: {} });
    await expect.poll(() => server.runtime.dispatcher.inFlightCount > 0, { timeout: 5_000, message: 'a handler in flight' }).toBe(true);
    const result = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(result.status).toBe('completed');
    expect(result.quiescence).toMatchObject({ drained: true, still_in_flight: 0 });
    expect(result.quiescence.in_flight_at_start).toBeGreaterThan(0);
    expect(result.quiescence.waited_ms).toBeGreaterThan(0);
    // Nothing half-deleted and nothing written afterwards by the handler that was running: it ended
    // before cleanup (drained), and nothing is in flight or open now.
    await server.runtime.waitForIdle(5_000);
    expect(server.runtime.dispatcher.inFlightCount).toBe(0);
    expect(await runScopedCounts(server)).toEqual(Object.fromEntries(RUN_SCOPED.map((t) => [t, 0])));
  });
});

describe('while a reset holds the lock', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
  });

  it('a second nuke and every mutation get RESET_IN_PROGRESS and /readyz is 503; all clear afterwards', async () => {
    // A container that ignores SIGTERM keeps the reset in its last step for the stop timeout.
    server = await startTestServer({
      env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_CONTAINER_COMMAND: `trap '' TERM; read _`, SWITCHBOARD_CONTAINER_STOP_TIMEOUT_MS: '2500' },
    });
    const item = await openOrderItem(server, 'L1');
    await containerFor(server, item.entity_id);
    await waitForQuiet(server);

    const runningKey = newKey();
    const running = server.rpc('runtime.nuke', { dry_run: false, reason: 'long one', idempotency_key: runningKey });
    await expect.poll(async () => (await readyz(server)) === 503, { timeout: 5_000, message: '/readyz to report the reset' }).toBe(true);
    // The same key while the first call runs: in progress, retryable.
    const inProgress = await fails(server, 'runtime.nuke', { dry_run: false, reason: 'long one', idempotency_key: runningKey }, 'IDEMPOTENCY_IN_PROGRESS');
    expect(inProgress.data.retryable).toBe(true);
    const second = await fails(server, 'runtime.nuke', { dry_run: false }, 'RESET_IN_PROGRESS');
    expect(second.data.retryable).toBe(true);
    expect(second.data.details.reset_id).toMatch(/^reset_/);
    await fails(server, 'runtime.nuke', { dry_run: true }, 'RESET_IN_PROGRESS');
    await fails(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } }, 'RESET_IN_PROGRESS');
    await fails(server, 'run.start', { event_name: 'tick', payload: { n: 1 } }, 'RESET_IN_PROGRESS');
    await fails(server, 'runtime.pause', {}, 'RESET_IN_PROGRESS');
    await fails(server, 'runtime.resume', {}, 'RESET_IN_PROGRESS');
    await fails(server, 'mailbox.reject', { mailbox_id: item.mailbox_id, reason: 'x' }, 'RESET_IN_PROGRESS');
    await fails(server, 'mailbox.approve', { mailbox_id: item.mailbox_id }, 'RESET_IN_PROGRESS');
    await fails(server, 'event.redrive', { dry_run: false, expected_plan_hash: 'sha256:any' }, 'RESET_IN_PROGRESS');
    await fails(server, 'event.replay', { dry_run: false, expected_plan_hash: 'sha256:any' }, 'RESET_IN_PROGRESS');
    expect((await ok(server, 'runtime.status')).reset_in_progress).toBe(true);
    // Retryable errors are not stored: a keyed call refused during the reset can succeed later.
    const key = newKey();
    await fails(server, 'event.publish', { event_name: 'tick', payload: { n: 9 }, idempotency_key: key }, 'RESET_IN_PROGRESS');

    const first = await running;
    expect(first.result!.status).toBe('partial_failure');
    expect(await ok(server, 'runtime.nuke', { dry_run: false, reason: 'long one', idempotency_key: runningKey })).toEqual(first.result);
    expect(await readyz(server)).toBe(200);
    expect(await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 9 }, idempotency_key: key })).toMatchObject({ status: 'running' });
  });
});

describe('partial failures', () => {
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
  });

  it('a container that refuses to stop gives partial_failure with an error naming it; the lock is released', async () => {
    server = await startTestServer({
      env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_CONTAINER_COMMAND: `trap '' TERM; read _`, SWITCHBOARD_CONTAINER_STOP_TIMEOUT_MS: '300' },
    });
    const item = await openOrderItem(server, 'S1');
    const container = await containerFor(server, item.entity_id);
    await waitForQuiet(server);

    const key = newKey();
    const result = await ok(server, 'runtime.nuke', { dry_run: false, idempotency_key: key });
    expect(result).toMatchObject({ dry_run: false, ok: false, partial_failure: true, status: 'partial_failure' });
    expect(result.errors).toEqual([{ scope: 'containers', message: expect.stringContaining(container.container_id) }]);
    expect(result.containers.failed).toEqual([expect.objectContaining({ container_id: container.container_id, entity_id: item.entity_id })]);
    // Cleanup still happened; the container is still alive and recorded as stop_failed for the next reset.
    expect(await runScopedCounts(server)).toEqual(Object.fromEntries(RUN_SCOPED.map((t) => [t, 0])));
    expect(pidAlive(container.pid!)).toBe(true);
    expect(await databaseOf(server.store).selectFrom('containers').select(['container_id', 'status']).execute()).toEqual([
      { container_id: container.container_id, status: 'stop_failed' },
    ]);
    const audit = await databaseOf(server.store).selectFrom('resets').selectAll().where('reset_id', '=', result.reset_id!).executeTakeFirstOrThrow();
    expect(audit.status).toBe('partial_failure');
    // The final response is what a replay returns.
    expect(await ok(server, 'runtime.nuke', { dry_run: false, idempotency_key: key })).toEqual(result);
    // Lock released: the runtime is ready and a new reset runs (and reports the same container again).
    expect(await readyz(server)).toBe(200);
    const again = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(again.status).toBe('partial_failure');
    expect(again.errors![0]!.message).toContain(container.container_id);
  });

  it('quiescence that runs out of time reports partial_failure and deletes nothing', async () => {
    server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_RESET_DRAIN_TIMEOUT_MS: '200' } });
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
    await waitForQuiet(server);
    await ok(server, 'event.publish', { event_name: 'slow.work', payload: {} });
    await expect.poll(() => server.runtime.dispatcher.inFlightCount > 0, { timeout: 5_000, message: 'a handler in flight' }).toBe(true);
    const before = await runScopedCounts(server);

    const result = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(result).toMatchObject({ ok: false, partial_failure: true, status: 'partial_failure' });
    expect(result.errors).toEqual([{ scope: 'quiescence', message: expect.stringMatching(/still running after 200 ms/) }]);
    expect(result.quiescence).toMatchObject({ drained: false, ingress_after: 'open' });
    expect(result.cleanup).toMatchObject({ skipped: true });
    expect(result.containers).toMatchObject({ skipped: true });
    expect(await runScopedCounts(server)).toEqual(before);
    expect(await readyz(server)).toBe(200);
    // Dispatch resumed: the slow work runs to its end (it dead-letters after its retries).
    await waitForQuiet(server);
    expect(await count(server, 'dead_letters')).toBe(1);
  });
});

describe('with the Docker Engine API (fake engine on a Unix socket)', () => {
  let server: TestServer;
  let engine: FakeDockerEngine;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-docker-'));
    engine = await startFakeDockerEngine(path.join(dir, 'docker.sock'));
    server = await startTestServer({
      env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_CONTAINERS: 'docker', SWITCHBOARD_DOCKER_SOCKET: engine.socketPath },
    });
  });
  afterAll(async () => {
    await server?.close();
    await engine?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts a container per managed entity and the reset stops and removes it', async () => {
    const item = await openOrderItem(server, 'K1');
    const container = await containerFor(server, item.entity_id);
    expect(engine.containers.get(container.container_id)).toMatchObject({ running: true, Labels: { 'switchboard.entity_id': item.entity_id } });
    await waitForQuiet(server);
    const dry = await ok(server, 'runtime.nuke', { dry_run: true });
    expect(dry.containers).toMatchObject({ implementation: 'docker', count: 1 });
    expect(engine.containers.get(container.container_id)!.running).toBe(true);

    const result = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(result).toMatchObject({ status: 'completed', containers: { implementation: 'docker', stopped: [container.container_id] } });
    expect(engine.containers.get(container.container_id)).toMatchObject({ running: false, removed: true });
  });

  it('an engine that cannot stop a container makes the reset a partial_failure naming the container', async () => {
    const item = await openOrderItem(server, 'K2');
    const container = await containerFor(server, item.entity_id);
    await waitForQuiet(server);
    engine.refuseStopFor.add(item.entity_id);
    const result = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(result).toMatchObject({ ok: false, partial_failure: true, status: 'partial_failure' });
    expect(result.errors).toEqual([{ scope: 'containers', message: expect.stringContaining(container.container_id) }]);
    expect(result.errors![0]!.message).toMatch(/HTTP 500/);
    engine.refuseStopFor.clear();
    const retry = await ok(server, 'runtime.nuke', { dry_run: false });
    expect(retry).toMatchObject({ status: 'completed', containers: { stopped: [container.container_id] } });
  });
});

describe('without dry_run', () => {
  let server: TestServer;
  withControlServer((s) => {
    server = s;
  });

  it('runtime.nuke {} is INVALID_PARAMS naming dry_run, and removes nothing', async () => {
    await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
    const eventsBefore = await count(server, 'events');
    for (const params of [{}, { reason: 'cleanup' }, { expected_plan_hash: 'sha256:abc' }]) {
      const error = await fails(server, 'runtime.nuke', params, 'INVALID_PARAMS');
      expect(error.data.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'dry_run', message: expect.stringMatching(/dry_run is required/) })]));
    }
    expect(await count(server, 'events')).toBe(eventsBefore);
    const auditRows = await count(server, 'resets');
    expect(auditRows).toBe(0);
  });
});

describe('reset under traffic', () => {
  let server: TestServer;
  let token: { id: string; name: string };
  withControlServer(async (s) => {
    server = s;
    const t = (await server.store.tokens.list())[0]!;
    token = { id: t.id, name: t.name };
  });

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
