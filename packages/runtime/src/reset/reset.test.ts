import path from 'node:path';
import { databaseOf, openTestStore, sql, testEngine } from '@switchboard/store/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcError } from '@switchboard/contract';
import { systemClock, type Store } from '@switchboard/store';
import type { ContainerManager, StopOutcome } from '../containers/container-manager';
import { DockerEngineManager } from '../containers/docker-engine-manager';
import { Runtime } from '../runtime';
import { bootFixture, count, minimalBundle, tempDir, writeBundle, type Fixture } from '../testing/runtime-fixture';
import { ResetCoordinator, type ResetCoordinatorOptions } from './reset-coordinator';
import type { ResetContext } from './reset-context';
import { RESET_LOCK_KEY, ResetLock } from './reset-lock';
import { runUntilIdle } from '../testing/run-until-idle';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function contextOf(f: Fixture, containers?: ContainerManager): ResetContext {
  const { runtime, store } = f;
  return { store, clock: systemClock, bundle: runtime.bundle, ingress: runtime.ingress, dispatcher: runtime.dispatcher, containers: containers ?? runtime.containers, log: runtime.log };
}

function coordinator(f: Fixture, options: ResetCoordinatorOptions = {}, containers?: ContainerManager): ResetCoordinator {
  return new ResetCoordinator(contextOf(f, containers), f.runtime.resetLock, options);
}

async function publishSome(f: Fixture, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await f.runtime.publish({ event_name: 'order.placed', payload: { order_id: `o${i}` } });
}

async function runScoped(f: Fixture) {
  return { runs: await count(f.store, 'runs'), events: await count(f.store, 'events'), deliveries: await count(f.store, 'deliveries'), queue: await count(f.store, 'ingress_queue') };
}

describe('reset coordinator', () => {
  it('quiescence cancels what has not started (deliveries, runs, queued publishes) before cleanup removes it', async () => {
    fx = await bootFixture(minimalBundle());
    await publishSome(fx, 3);
    await fx.runtime.pause();
    await publishSome(fx, 1);
    const result = await fx.runtime.reset({ dryRun: false, reason: 'unit' });
    expect(result).toMatchObject({ status: 'completed', ok: true });
    expect(result.quiescence).toMatchObject({ drained: true, cancelled_deliveries: 3, cancelled_runs: 3, cancelled_queued_publishes: 1, ingress_before: 'paused', ingress_after: 'open' });
    expect(result.cleanup).toMatchObject({ deleted: { runs: 4, events: 3, deliveries: 3, ingress_queue: 1 } });
    expect(await runScoped(fx)).toEqual({ runs: 0, events: 0, deliveries: 0, queue: 0 });
    expect(fx.runtime.dispatcher.claimsArePaused).toBe(false);
    expect(fx.runtime.isResetting()).toBe(false);
  });

  it('a failing cleanup is rolled back and reported; later steps are skipped; the lock and ingress are restored', async () => {
    fx = await bootFixture(minimalBundle());
    await publishSome(fx, 2);
    const before = await runScoped(fx);
    const result = await coordinator(fx, {
      beforeStep: (step) => {
        if (step === 'cleanup') throw new Error('disk full');
      },
    }).run({ dryRun: false });
    expect(result).toMatchObject({ ok: false, partial_failure: true, status: 'partial_failure' });
    expect(result.errors).toEqual([{ scope: 'cleanup', message: expect.stringContaining('disk full') }]);
    expect(result.containers).toMatchObject({ skipped: true });
    // Quiescence cancelled the pending work, but no row was deleted.
    expect(await runScoped(fx)).toEqual(before);
    expect(result.quiescence).toMatchObject({ ingress_after: 'open' });
    expect(fx.runtime.isResetting()).toBe(false);
    expect(fx.runtime.dispatcher.claimsArePaused).toBe(false);
    // Released: the row stays (for the write guard's share locks), empty.
    expect(await databaseOf(fx.store).selectFrom('runtime_state').select('value').where('key', '=', RESET_LOCK_KEY).executeTakeFirst()).toEqual({ value: '' });
    const audit = await databaseOf(fx.store).selectFrom('resets').selectAll().executeTakeFirstOrThrow();
    expect(audit.status).toBe('partial_failure');
  });

  it('a container manager that throws, or a record from another implementation, is a reported failure naming the container', async () => {
    fx = await bootFixture(minimalBundle());
    const throwing: ContainerManager = {
      implementation: 'local',
      start: () => Promise.reject(new Error('unused')),
      stop: (): Promise<StopOutcome> => Promise.reject(new Error('socket closed')),
      inspect: () => Promise.reject(new Error('unused')),
      listStoppable: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    };
    const now = new Date().toISOString();
    await databaseOf(fx.store)
      .insertInto('containers')
      .values([
        { container_id: 'ctr_local1', entity_id: 'e1', implementation: 'local', status: 'running', pid: null, started_at: now, stopped_at: null, last_error: null },
        { container_id: 'ctr_docker1', entity_id: 'e2', implementation: 'docker', status: 'running', pid: null, started_at: now, stopped_at: null, last_error: null },
      ])
      .execute();
    const result = await coordinator(fx, {}, throwing).run({ dryRun: false });
    expect(result.status).toBe('partial_failure');
    const messages = (result.errors ?? []).map((e) => `${e.scope}: ${e.message}`).sort();
    expect(messages).toEqual([
      expect.stringMatching(/^containers: container ctr_docker1 was started by the docker container manager/),
      expect.stringMatching(/^containers: stopping container ctr_local1 failed: socket closed/),
    ]);
  });

  it('a container that could not be started is recorded as failed and logged; a reset clears it without an engine call', async () => {
    const bundle = minimalBundle();
    (bundle.entity_types as any).order.managed_container = true;
    const dir = tempDir();
    const store = await openTestStore(path.join(dir, 'data'));
    const containers = new DockerEngineManager({ store, clock: systemClock, socketPath: path.join(dir, 'no-engine.sock'), image: 'busybox:1.36' });
    const runtime = await Runtime.boot({ store, bundlePath: writeBundle(dir, bundle), autoStart: false, containers });
    fx = { dir, store, runtime, close: async () => (await runtime.stop(), await store.close()) };
    await runtime.publish({ event_name: 'order.placed', payload: { order_id: 'c1' } });
    await runUntilIdle(runtime);
    let record: any;
    // The start runs after the entity commits, once this server has checked that it supervises containers.
    await expect
      .poll(async () => (record = await databaseOf(store).selectFrom('containers').selectAll().executeTakeFirst())?.status, { timeout: 10_000 })
      .toBe('failed');
    expect(record).toMatchObject({ entity_id: 'order-c1', implementation: 'docker', status: 'failed' });
    expect(record.last_error).toMatch(/docker create failed: .*unreachable/);
    // The log record is written after the container's status, in a write of its own.
    const startFailure = () => databaseOf(store).selectFrom('logs').selectAll().where('error_code', '=', 'CONTAINER_START_FAILED').executeTakeFirst();
    await expect.poll(async () => (await startFailure()) !== undefined, { timeout: 10_000 }).toBe(true);
    expect(await startFailure()).toMatchObject({ level: 'warn', component: 'containers', entity_id: 'order-c1' });
    const result = await runtime.reset({ dryRun: false });
    expect(result).toMatchObject({ status: 'completed', containers: { already_stopped: [record.container_id], failed: [] } });
    expect(await databaseOf(store).selectFrom('containers').selectAll().execute()).toEqual([]);
  });

  it('PLAN_STALE changes nothing but its refusal audit record (with the diff): no lock, nothing paused', async () => {
    fx = await bootFixture(minimalBundle());
    const preview = await fx.runtime.reset({ dryRun: true });
    await publishSome(fx, 1);
    const err = await fx.runtime.reset({ dryRun: false, expectedPlanHash: preview.plan.plan_hash as string, reason: 'stale test', actorTokenId: 'tok_x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe('PLAN_STALE');
    expect(await count(fx.store, 'runs')).toBe(1);
    const audits = await databaseOf(fx.store).selectFrom('resets').selectAll().execute();
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ status: 'refused', reason: 'stale test', actor_token_id: 'tok_x', finished_at: expect.any(String) });
    expect(JSON.parse(audits[0]!.result!)).toMatchObject({ refused: 'PLAN_STALE', expected_plan_hash: preview.plan.plan_hash, diff: { runs: 1 } });
    expect(fx.runtime.isResetting()).toBe(false);
    expect(await fx.runtime.ingressState()).toBe('open');
  });

  it('marks audit records left in progress by a process that died mid-reset as interrupted', async () => {
    fx = await bootFixture(minimalBundle());
    await databaseOf(fx.store)
      .insertInto('resets')
      .values({ reset_id: 'reset_dead', started_at: '2026-01-01T00:00:00.000Z', finished_at: null, status: 'in_progress', reason: null, actor_token_id: null, plan_hash: null, result: null })
      .execute();
    await fx.runtime.reset({ dryRun: false });
    expect(await databaseOf(fx.store).selectFrom('resets').select('status').where('reset_id', '=', 'reset_dead').executeTakeFirstOrThrow()).toEqual({ status: 'interrupted' });
  });
});

describe('reset lock', () => {
  it('admits one holder; a second acquire in this process or another gets RESET_IN_PROGRESS', async () => {
    fx = await bootFixture(minimalBundle());
    const a = new ResetLock(fx.store, systemClock);
    const b = new ResetLock(fx.store, systemClock); // stands for another server process on the same database
    const [first, second] = await Promise.allSettled([a.acquire('reset_a'), a.acquire('reset_a2')]);
    expect(first.status).toBe('fulfilled');
    expect(second.status === 'rejected' && (second.reason as RpcError).code).toBe('RESET_IN_PROGRESS');
    await expect(b.acquire('reset_b')).rejects.toMatchObject({ code: 'RESET_IN_PROGRESS', details: { reset_id: 'reset_a' } });
    await b.refreshView();
    expect(b.isHeldByAnyone()).toBe(true);
    expect(b.isHeld()).toBe(false);
    await a.release();
    await b.acquire('reset_b');
    expect(b.isHeld()).toBe(true);
    await b.release();
    await a.refreshView();
    expect(a.isHeldByAnyone()).toBe(false);
  });

  it('a view read while this process held the lock, answering after its release, does not report the released reset as another\'s', async () => {
    fx = await bootFixture(minimalBundle());
    const store = fx.store;
    // The view's read starts while the row names reset_own and answers only after the release.
    let holdNextRead: ((answer: () => void) => void) | undefined;
    const runtimeState = new Proxy(store.runtimeState, {
      get(target, prop, receiver) {
        if (prop !== 'get') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof target.get>) => {
          const value = await target.get(...args);
          const hold = holdNextRead;
          holdNextRead = undefined;
          if (hold) await new Promise<void>((answer) => hold(answer));
          return value;
        };
      },
    });
    const lock = new ResetLock(new Proxy(store, { get: (target, prop, receiver) => (prop === 'runtimeState' ? runtimeState : Reflect.get(target, prop, receiver)) }), systemClock);
    await lock.acquire('reset_own');
    let answerView: (() => void) | undefined;
    holdNextRead = (answer) => (answerView = answer);
    const view = lock.refreshView();
    await vi.waitFor(() => expect(answerView).toBeDefined());
    await lock.release();
    answerView!();
    await view;
    expect(lock.isHeldByAnyone()).toBe(false);

    // Likewise a view that answers after the holder is dropped but before the row is emptied.
    await lock.acquire('reset_own_2');
    const releasing = lock.release(); // drops the holder at once; reads the row, then empties it
    await lock.refreshView(); // on SQLite's one connection this read runs before the release's update
    await releasing;
    expect(lock.isHeldByAnyone()).toBe(false);
    expect((await databaseOf(store).selectFrom('runtime_state').select('value').where('key', '=', RESET_LOCK_KEY).executeTakeFirstOrThrow()).value).toBe('');
  });

  it('takes over a lock whose holder stopped refreshing it (a process that died mid-reset)', async () => {
    fx = await bootFixture(minimalBundle());
    await leaveExpiredLock(fx.store);
    const lock = new ResetLock(fx.store, systemClock);
    await lock.acquire('reset_new');
    const row = await databaseOf(fx.store).selectFrom('runtime_state').select('value').where('key', '=', RESET_LOCK_KEY).executeTakeFirstOrThrow();
    expect(JSON.parse(row.value).reset_id).toBe('reset_new');
    await lock.release();
  });

  it('of two holders taking over an expired lock at once, exactly one wins (two processes on PostgreSQL)', async () => {
    fx = await bootFixture(minimalBundle());
    await leaveExpiredLock(fx.store);
    // Two ResetLock objects stand for two processes: each has its own in-memory claim, and on
    // PostgreSQL each transaction runs on its own pooled connection.
    await Promise.all(Array.from({ length: 4 }, () => fx!.store.ping()));
    const locks = [new ResetLock(fx.store, systemClock), new ResetLock(fx.store, systemClock)];
    const outcomes = await Promise.allSettled(locks.map((l, i) => l.acquire(`reset_${i}`)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'RESET_IN_PROGRESS' });
    const row = await databaseOf(fx.store).selectFrom('runtime_state').select('value').where('key', '=', RESET_LOCK_KEY).executeTakeFirstOrThrow();
    const winner = outcomes.findIndex((o) => o.status === 'fulfilled');
    expect(JSON.parse(row.value).reset_id).toBe(`reset_${winner}`);
    await locks[winner]!.release();
  });
});

const DEAD_LOCK = JSON.stringify({ reset_id: 'reset_dead', started_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:01:00.000Z' });

describe.runIf(testEngine() === 'postgres')('reset lock and the writes of other processes (PostgreSQL)', () => {
  it('a mutation running when a reset takes the lock holds it off until it commits; later mutations are refused; the reset\'s own steps pass', async () => {
    fx = await bootFixture(minimalBundle());
    const store = fx.store;
    const resetting = new ResetLock(store, systemClock); // server A
    const writing = new ResetLock(store, systemClock); // server B
    const order: string[] = [];
    let finishMutation!: () => void;
    const mutationMayFinish = new Promise<void>((resolve) => (finishMutation = resolve));
    let guardPassed!: () => void;
    const passed = new Promise<void>((resolve) => (guardPassed = resolve));
    const mutation = store
      .transaction(async (tx) => {
        await writing.guardWrites()(tx);
        guardPassed();
        await mutationMayFinish;
      })
      .then(() => order.push('mutation committed'));
    await passed;
    const acquired = resetting.acquire('reset_a').then(() => order.push('lock taken'));
    // The signal that the lock is waiting: its backend waits on the mutation's row lock.
    await expect
      .poll(async () => Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(databaseOf(store))).rows[0]!.n), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(order).toEqual([]);
    finishMutation();
    await Promise.all([mutation, acquired]);
    // Both answers arrive on their own connections once the mutation commits (its commit releases
    // the row lock the reset waited on), so the order their callbacks run in is not the database's
    // order: the waiting above is what shows the lock was held off.
    expect(order.sort()).toEqual(['lock taken', 'mutation committed']);

    const later = store.transaction((tx) => writing.guardWrites()(tx));
    await expect(later).rejects.toMatchObject({ code: 'RESET_IN_PROGRESS', details: { reset_id: 'reset_a' } });
    await store.transaction((tx) => resetting.guardWrites('reset_a')(tx));
    await writing.refreshView();
    expect(writing.isHeldByAnyone()).toBe(true);
    await resetting.release();
    await store.transaction((tx) => writing.guardWrites()(tx));
  });
});

describe.runIf(testEngine() === 'postgres')('reset lock and the claims of other processes (PostgreSQL)', () => {
  it('a claim made while a reset is taking the lock waits for it and then claims nothing; after the reset it claims', async () => {
    fx = await bootFixture(minimalBundle());
    const { store, runtime } = fx;
    await publishSome(fx, 1);
    let commitLock!: () => void;
    const lockMayCommit = new Promise<void>((resolve) => (commitLock = resolve));
    let rowTaken!: () => void;
    const taken = new Promise<void>((resolve) => (rowTaken = resolve));
    const holder = JSON.stringify({ reset_id: 'reset_b', started_at: new Date().toISOString(), expires_at: new Date(Date.now() + 60_000).toISOString() });
    const taking = store.transaction(async (tx) => {
      await store.runtimeState.set(RESET_LOCK_KEY, holder, tx);
      rowTaken();
      await lockMayCommit;
    });
    await taken;
    const claim = runtime.dispatcher.claimDue(16);
    // The signal that the claim waits: its backend waits on the lock row the reset is changing.
    await expect
      .poll(async () => Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(databaseOf(store))).rows[0]!.n), { timeout: 10_000 })
      .toBeGreaterThan(0);
    commitLock();
    await taking;
    expect(await claim).toEqual([]);
    await store.runtimeState.set(RESET_LOCK_KEY, '');
    expect((await runtime.dispatcher.claimDue(16)).map((d) => d.event.event_name)).toEqual(['order.placed']);
  });
});

describe.runIf(testEngine() === 'postgres')('publishes while another process resets or paused ingress (PostgreSQL)', () => {
  // Through Ingress, past this process's view of the lock: the guard in the publish's own
  // transaction is what refuses (or queues) it.
  const publish = (f: Fixture, orderId: string) => f.runtime.ingress.publish({ event_name: 'order.placed', payload: { order_id: orderId } });

  it('refuses a publish while the lock is held, and writes nothing', async () => {
    fx = await bootFixture(minimalBundle());
    const { store } = fx;
    const holder = JSON.stringify({ reset_id: 'reset_c', started_at: new Date().toISOString(), expires_at: new Date(Date.now() + 60_000).toISOString() });
    await store.runtimeState.set(RESET_LOCK_KEY, holder);
    await expect(publish(fx, 'refused')).rejects.toMatchObject({ code: 'RESET_IN_PROGRESS', details: { reset_id: 'reset_c' } });
    expect([await count(store, 'runs'), await count(store, 'events'), await count(store, 'deliveries')]).toEqual([0, 0, 0]);
  });

  it('queues a publish while ingress is paused, and publishes once it is open', async () => {
    fx = await bootFixture(minimalBundle());
    const { store } = fx;
    await store.runtimeState.set('ingress', 'paused');
    expect((await publish(fx, 'queued')).status).toBe('queued');
    expect([await count(store, 'runs'), await count(store, 'events'), await count(store, 'ingress_queue')]).toEqual([1, 0, 1]);
    await store.runtimeState.set('ingress', 'open');
    const published = await publish(fx, 'running');
    expect(published.status).toBe('running');
    expect(await databaseOf(store).selectFrom('events').select('event_id').execute()).toEqual([{ event_id: published.event_id }]);
  });
});

/** The lock row of a process that died mid-reset: never refreshed, long expired. */
async function leaveExpiredLock(store: Store): Promise<void> {
  await databaseOf(store)
    .insertInto('runtime_state')
    .values({ key: RESET_LOCK_KEY, value: DEAD_LOCK })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: DEAD_LOCK }))
    .execute();
}
