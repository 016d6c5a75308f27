/**
 * Retention on both engines (issue 39, ADR 0018): each thing that is never removed is built and
 * survives a pass; removed runs go whole (no delivery, dead letter, turn or log record of theirs
 * is left); incident counts are the same after as before; a preview counts exactly what the pass
 * then removes; and one server prunes at a time, shown by the lease, not by timing.
 */
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { systemClock, zeroCounts, type RetentionCounts, type Store } from '@switchboard/store';
import { databaseOf, openTestStore, testEngine } from '@switchboard/store/testing';
import { bootFixture, minimalBundle, tempDir, type Fixture } from '../testing/runtime-fixture';
import { Retention } from './retention';
import { DEFAULT_RETENTION_SETTINGS, type RetentionSettings } from './retention-settings';
import { RuntimeLog } from '../runtime-log';

const DAY_MS = 86_400_000;
const daysAgo = (days: number, plusMs = 0) => new Date(Date.now() - days * DAY_MS + plusMs).toISOString();
const SETTINGS: RetentionSettings = { ...DEFAULT_RETENTION_SETTINGS, historyDays: 30, deadLetterDays: 90, incidentRollupDays: 0, auditDays: 0, batchSize: 3, maxRowsPerSecond: 1_000_000 };

let fx: Fixture | undefined;
const extraStores: Store[] = [];
afterEach(async () => {
  for (const s of extraStores.splice(0)) await s.close();
  await fx?.close();
  fx = undefined;
});

interface RunShape {
  status?: 'completed' | 'failed' | 'running';
  settledDaysAgo?: number;
  delivery?: 'delivered' | 'pending' | 'in_progress' | 'dead_lettered';
  deadLetter?: 'open' | 'redriven';
  mailbox?: 'pending' | 'approved';
  /** Warn records of one incident group, each at its own time. */
  incident?: { component: string; at: string };
  payloadBytes?: number;
}

let logSeq = 0;

/** One run with an event, a delivery, a turn, an ended conversation, a released publish and an info record. */
async function seedRun(store: Store, runId: string, shape: RunShape = {}): Promise<void> {
  const db = databaseOf(store);
  const status = shape.status ?? (shape.deadLetter ? 'failed' : 'completed');
  const at = daysAgo((shape.settledDaysAgo ?? 60) + 0.01);
  const settledAt = status === 'running' ? null : daysAgo(shape.settledDaysAgo ?? 60);
  const eventId = `evt_${runId}`;
  await db.insertInto('runs').values({ run_id: runId, status, root_event_id: eventId, event_name: 'order.placed', entity_id: null, bundle_fingerprint: 'f', created_at: at, settled_at: settledAt }).execute();
  const payload = JSON.stringify({ order_id: runId, pad: 'x'.repeat(shape.payloadBytes ?? 10) });
  const { seq } = await db
    .insertInto('events')
    .values({ event_id: eventId, event_name: 'order.placed', created_at: at, source: 'test', payload, entity_id: null, run_id: runId, chain_depth: 0, parent_event_id: null, has_dead_letter: shape.deadLetter ? 1 : 0 })
    .returning('seq')
    .executeTakeFirstOrThrow();
  const deliveryStatus = shape.delivery ?? (shape.deadLetter ? 'dead_lettered' : 'delivered');
  await db
    .insertInto('deliveries')
    .values({
      delivery_id: `dlv_${runId}`,
      event_id: eventId,
      event_seq: Number(seq),
      event_created_at: at,
      run_id: runId,
      subscriber_id: 'track-order',
      subscriber_type: 'node',
      status: deliveryStatus,
      attempts: 1,
      max_attempts: 3,
      next_attempt_at: at,
      lease_owner: deliveryStatus === 'in_progress' ? 'someone' : null,
      lease_expires_at: deliveryStatus === 'in_progress' ? daysAgo(-1) : null,
      last_error: null,
      reason_code: null,
      session_id: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  if (shape.deadLetter) {
    await db
      .insertInto('dead_letters')
      .values({
        dead_letter_id: `dl_${runId}`,
        event_id: eventId,
        event_seq: Number(seq),
        event_created_at: at,
        delivery_id: `dlv_${runId}`,
        run_id: runId,
        subscriber_id: 'track-order',
        chain_depth: 0,
        created_at: at,
        failure_type: 'handler_error',
        retry_count: 3,
        error_message: 'boom',
        handler_node: 'track-order',
        reason_code: 'HANDLER_ERROR',
        redriven_at: shape.deadLetter === 'redriven' ? at : null,
      })
      .execute();
  }
  await db.insertInto('conversations').values({ session_id: `ses_${runId}`, agent_id: 'agent', scope_key: runId, started_at: at, status: 'ended', message_count: 2, turn_count: 1, ended_at: at, run_id: runId }).execute();
  await db
    .insertInto('turns')
    .values({ turn_id: `turn_${runId}`, session_id: `ses_${runId}`, turn_index: 0, latency_ms: 1, parse_ok: 1, trigger_event_id: eventId, trigger_event_type: 'order.placed', error: null, request_payload: null, response_payload: null, tool_calls: null, turn_blocks: null, started_at: at, completed_at: at })
    .execute();
  await db.insertInto('ingress_queue').values({ queue_id: `q_${runId}`, event_id: eventId, run_id: runId, event_name: 'order.placed', payload, entity_id: null, source: 'test', status: 'released', queued_at: at, released_at: at }).execute();
  if (shape.mailbox) {
    await db
      .insertInto('mailbox_items')
      .values({ mailbox_id: `mbx_${runId}`, created_at: at, payload: '{}', priority: 'normal', source_flow: 'f', status: shape.mailbox, type: 'approval', decided_at: null, decision: null, source_entity_id: null, source_event_id: eventId, run_id: runId })
      .execute();
  }
  await writeLog(store, { run_id: runId, event_id: eventId, ts: at, level: 'info', component: 'dispatcher' });
  if (shape.incident) await writeLog(store, { run_id: runId, event_id: eventId, ts: shape.incident.at, level: 'warn', component: shape.incident.component, error_code: 'E_FLAKY' });
}

async function writeLog(store: Store, r: { run_id?: string | null; event_id?: string | null; ts: string; level: 'info' | 'warn'; component: string; error_code?: string }): Promise<void> {
  await store.logs.write({
    log_id: `log_${++logSeq}_${Math.random().toString(36).slice(2)}`,
    ts: r.ts,
    level: r.level,
    level_rank: r.level === 'warn' ? 2 : 1,
    component: r.component,
    error_code: r.error_code ?? null,
    message: `${r.level} record`,
    is_mcp: 0,
    event_id: r.event_id ?? null,
    run_id: r.run_id ?? null,
    delivery_id: null,
    dead_letter_id: null,
    entity_id: null,
    session_id: null,
  });
}

async function runIds(store: Store): Promise<string[]> {
  return (await databaseOf(store).selectFrom('runs').select('run_id').orderBy('run_id').execute()).map((r) => r.run_id);
}

/** Rows of removed runs still present anywhere: none means each went whole. */
async function leftoversOf(store: Store, removed: string[]): Promise<Record<string, number>> {
  const db = databaseOf(store);
  const n = async (q: any) => Number((await q.select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const events = removed.map((r) => `evt_${r}`);
  return {
    events: await n(db.selectFrom('events').where('run_id', 'in', removed)),
    deliveries: await n(db.selectFrom('deliveries').where('run_id', 'in', removed)),
    dead_letters: await n(db.selectFrom('dead_letters').where('run_id', 'in', removed)),
    turns: await n(db.selectFrom('turns').where('trigger_event_id', 'in', events)),
    conversations: await n(db.selectFrom('conversations').where('run_id', 'in', removed)),
    logs: await n(db.selectFrom('logs').where('run_id', 'in', removed)),
    ingress_queue: await n(db.selectFrom('ingress_queue').where('run_id', 'in', removed)),
  };
}

it('removes old settled runs whole and keeps everything unfinished; a preview counts what the pass removes', async () => {
  fx = await bootFixture(minimalBundle(), { retention: SETTINGS });
  const { store, runtime } = fx;
  await seedRun(store, 'r_old_done');
  await seedRun(store, 'r_old_done_2');
  await seedRun(store, 'r_old_redriven', { deadLetter: 'redriven' });
  await seedRun(store, 'r_ancient_dead_letter', { deadLetter: 'open', settledDaysAgo: 120 });
  // Never removed:
  await seedRun(store, 'r_recent', { settledDaysAgo: 1 });
  await seedRun(store, 'r_running', { status: 'running', delivery: 'pending' });
  await seedRun(store, 'r_leased', { status: 'running', delivery: 'in_progress' });
  await seedRun(store, 's_settled_but_pending_delivery', { delivery: 'pending' });
  await seedRun(store, 's_dead_letter_open', { deadLetter: 'open' });
  await seedRun(store, 's_mailbox_pending', { mailbox: 'pending' });
  await seedRun(store, 's_operation_target');
  const now = new Date().toISOString();
  await store.transaction((tx) =>
    store.operations.create(tx, { operation_id: 'op_replay', kind: 'replay', status: 'running', selection: '{}', plan_hash: 'h', rate_per_second: 1, total: 1, actor_token_id: 't', created_at: now, updated_at: now }, ['evt_s_operation_target']),
  );
  // The latest record of an incident is a sample: its run stays whole.
  await seedRun(store, 's_sampled', { incident: { component: 'svc.sampled', at: daysAgo(59) } });
  // Log records no run owns: an old one goes, a recent one stays.
  await writeLog(store, { ts: daysAgo(45), level: 'info', component: 'runtime' });
  await writeLog(store, { ts: daysAgo(2), level: 'info', component: 'runtime' });

  const kept = ['r_leased', 'r_recent', 'r_running', 's_dead_letter_open', 's_mailbox_pending', 's_operation_target', 's_sampled', 's_settled_but_pending_delivery'];
  const removed = ['r_ancient_dead_letter', 'r_old_done', 'r_old_done_2', 'r_old_redriven'];

  const preview = await runtime.retention.run({ dryRun: true, trigger: 'manual' });
  expect(preview.ran).toBe(true);
  expect(await runIds(store)).toEqual([...removed, ...kept].sort());

  const pass = await runtime.retention.run({ dryRun: false, trigger: 'manual' });
  if (!pass.ran || !preview.ran) throw new Error('both should have run');
  const expected: RetentionCounts = { ...zeroCounts(), runs: 4, events: 4, deliveries: 4, dead_letters: 2, turns: 4, conversations: 4, queued_publishes: 4, logs: 5 };
  expect(pass.run.removed).toEqual(expected);
  expect(preview.run.removed).toEqual(pass.run.removed);
  expect(pass.run).toMatchObject({ status: 'completed', dry_run: false, trigger: 'manual' });
  expect(preview.run).toMatchObject({ status: 'completed', dry_run: true });
  expect(await runIds(store)).toEqual(kept);
  expect(await leftoversOf(store, removed)).toEqual({ events: 0, deliveries: 0, dead_letters: 0, turns: 0, conversations: 0, logs: 0, ingress_queue: 0 });
  // What is kept is kept whole.
  expect(await leftoversOf(store, ['s_sampled'])).toMatchObject({ events: 1, deliveries: 1, turns: 1, logs: 2 });
  const looseLogs = await databaseOf(store).selectFrom('logs').select('ts').where('run_id', 'is', null).where('component', '=', 'runtime').where('message', '=', 'info record').execute();
  expect(looseLogs.map((l) => l.ts < daysAgo(30))).toEqual([false]);

  // A second pass finds nothing more; the status reports the last pass and preview.
  const again = await runtime.retention.run({ dryRun: false, trigger: 'schedule' });
  expect(again.ran && again.run.removed).toEqual(zeroCounts());
  const status = await runtime.retention.status();
  expect(status.last_run?.retention_run_id).toBe(again.ran ? again.run.retention_run_id : undefined);
  expect(status.last_preview?.retention_run_id).toBe(preview.run.retention_run_id);
});

it('incident counts are the same after a pass removed their records', async () => {
  fx = await bootFixture(minimalBundle(), { retention: SETTINGS });
  const { store, runtime } = fx;
  // Eight occurrences over eight old runs: the latest five are samples (their runs stay), the
  // oldest three go with their runs. Another group's only records are loose, old and many.
  for (let i = 0; i < 8; i++) await seedRun(store, `inc_${i}`, { incident: { component: 'svc.flaky', at: daysAgo(60, i * 60_000) } });
  for (let i = 0; i < 9; i++) await writeLog(store, { ts: daysAgo(50, i * 1000), level: 'warn', component: 'svc.loose', error_code: 'E_LOOSE' });
  const window = { windowStart: daysAgo(89, 123_456), windowEnd: new Date(Date.now() + 1).toISOString(), sort: 'count' as const, limit: 50, histogramBuckets: 0 };
  const shape = async () =>
    (await runtime.incidents.page(window)).incidents.map((i) => ({ component: i.component, count: i.count, first_seen: i.first_seen, last_seen: i.last_seen })).sort((a, b) => a.component.localeCompare(b.component));
  const before = await shape();
  expect(before.map((g) => [g.component, g.count])).toEqual([['svc.flaky', 8], ['svc.loose', 9]]);

  const pass = await runtime.retention.run({ dryRun: false, trigger: 'manual' });
  expect(pass.ran && pass.run.removed).toMatchObject({ runs: 3, logs: 3 + 3 + 4 });
  const warnLeft = await databaseOf(store).selectFrom('logs').select('component').where('level_rank', '>=', 2).execute();
  expect(warnLeft.length).toBe(10);
  expect(await shape()).toEqual(before);
});

it('removes old audit records and the chain still verifies from where it now starts', async () => {
  fx = await bootFixture(minimalBundle(), { retention: { ...SETTINGS, historyDays: 0, auditDays: 30 } });
  const { store, runtime } = fx;
  // Each record names its own target and one they all share.
  for (let i = 0; i < 5; i++) await store.audit.append({ channel: 'api', serverId: 's', method: 'event.publish', targetIds: [`evt-${i}`, 'shared'], outcome: 'ok' });
  expect((await store.audit.verify()).ok).toBe(true);
  // Backdate the first three: they are older than the setting.
  await databaseOf(store).updateTable('audit').set({ at: daysAgo(40) }).where('seq', '<=', 3).execute();
  // The backdated records no longer match their hashes; recompute nothing - verification starts after them.
  const pass = await runtime.retention.run({ dryRun: false, trigger: 'manual' });
  expect(pass.ran && pass.run.removed.audit).toBe(3);
  expect(await store.audit.verify()).toEqual({ ok: true, verified: 2 });
  // The removed records' targets went with them; the kept records' stay, the shared one's included.
  const targets = await databaseOf(store).selectFrom('audit_targets').select(['target_id', 'seq']).orderBy('seq').orderBy('target_id').execute();
  expect(targets.map((t) => [t.target_id, Number(t.seq)])).toEqual([['evt-3', 4], ['shared', 4], ['evt-4', 5], ['shared', 5]]);
  expect((await store.audit.list({ targetId: 'shared' }, 10)).map((r) => r.seq)).toEqual([5, 4]);
});

it('one server prunes at a time: a pass holds the lease, and a server whose lease passed on removes nothing more', async () => {
  fx = await bootFixture(minimalBundle(), { retention: SETTINGS });
  const { store } = fx;
  for (let i = 0; i < 6; i++) await seedRun(store, `lease_${i}`);
  // Another server of the same database: on PostgreSQL its own connections, on SQLite the same store.
  const other = testEngine() === 'postgres' ? await openTestStore(path.join(fx.dir, 'data')) : store;
  if (other !== store) extraStores.push(other);
  // Slow enough to be seen holding the lease: one run per batch at 10 rows/s.
  const slow = { ...SETTINGS, batchSize: 1, maxRowsPerSecond: 10 };
  const a = new Retention(store, systemClock, new RuntimeLog(store.logs, systemClock), 'server-a', slow);
  const b = new Retention(other, systemClock, new RuntimeLog(other.logs, systemClock), 'server-b', slow);
  const passA = a.run({ dryRun: false, trigger: 'schedule' });
  await expect.poll(async () => (await other.retention.leaseHolder())?.owner, { timeout: 10_000 }).toBe('server-a');
  expect(await b.run({ dryRun: false, trigger: 'schedule' })).toEqual({ ran: false, held_by: 'server-a' });
  const doneA = await passA;
  expect(doneA.ran && doneA.run.removed.runs).toBe(6);
  expect(await other.retention.leaseHolder()).toBeUndefined();
  await a.stop();
  await b.stop();

  // The fence: a lease that expired and was taken over renews no more.
  const first = (await store.retention.claimLease('server-a', -1))!;
  const second = (await other.retention.claimLease('server-b', 60_000))!;
  expect(second.epoch).toBe(first.epoch + 1);
  expect(await store.retention.renewLease(first, 60_000)).toBe(false);
  expect(await store.retention.claimLease('server-a', 60_000)).toBeUndefined();
  expect(await other.retention.renewLease(second, 60_000)).toBe(true);
});

it('gives the room back: the SQLite file shrinks after a pass (PostgreSQL reuses it)', async () => {
  fx = await bootFixture(minimalBundle(), { dir: tempDir('sb-retention-space-'), retention: { ...SETTINGS, batchSize: 200 } });
  const { store, runtime } = fx;
  for (let i = 0; i < 300; i++) await seedRun(store, `big_${String(i).padStart(4, '0')}`, { payloadBytes: 8_000 });
  const before = await store.retention.storage();
  const pass = await runtime.retention.run({ dryRun: false, trigger: 'manual' });
  if (!pass.ran) throw new Error('should have run');
  expect(pass.run.removed.runs).toBe(300);
  const after = await store.retention.storage();
  if (testEngine() === 'sqlite') {
    expect(before.reclaim).toBe('incremental');
    // The payloads alone were 300 × 2 copies × 8 KB.
    expect(before.bytes - after.bytes).toBeGreaterThan(300 * 2 * 8_000 * 0.8);
    expect(after.freeBytes).toBeLessThan(before.bytes - after.bytes);
  } else {
    expect(after.reclaim).toBe('reused');
    expect(after.bytes).toBeGreaterThan(0);
  }
});

it('runs on its schedule, and says when the next pass is due', async () => {
  fx = await bootFixture(minimalBundle(), { retention: { ...SETTINGS, intervalMs: 200 } });
  const { store, runtime } = fx;
  await seedRun(store, 'scheduled_old');
  runtime.retention.start();
  expect(Date.parse((await runtime.retention.summary()).nextRunAt!)).toBeGreaterThan(Date.now() - 1_000);
  await expect.poll(async () => (await runtime.retention.summary()).lastRun?.status, { timeout: 10_000 }).toBe('completed');
  const { lastRun } = await runtime.retention.summary();
  expect(lastRun).toMatchObject({ trigger: 'schedule', dry_run: false, removed: { runs: 1 } });
  expect(await runIds(store)).toEqual([]);
});
