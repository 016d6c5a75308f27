/**
 * Redrive and replay operations on several servers (issue 36): an operation is sent by one live server
 * at a time, under a fenced lease, so a server that joins, a killed owner or a cancel from another
 * server never loses an item, never sends one twice and never leaves counts that do not add up.
 *
 * (a) server B joins while A sends a 1,500-item replay; (b) the owner is SIGKILLed every ~2 s,
 * 3-4 times, during a 1,500-item replay and a 300-item redrive; (c) server B cancels while A sends.
 * After each, every item is audited from the database: the effects it created (replayed events,
 * redrive deliveries) per target, its status, the operation's counts and status.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitSettled } from './audit';
import { scrapedValue } from '../metrics-scrape';
import { CHAOS_TOKEN, Cluster, waitUntil, type ChaosServer } from './cluster';

const REPLAY_ITEMS = 1_500;
const REDRIVE_ITEMS = 300;
/** Draining what a test published first: minutes when the machine is shared and busy. */
const SETTLE_MS = 300_000;
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.onTestDatabase('operations');
}, 60_000);
afterAll(() => cluster?.dispose());

interface OperationAudit {
  status: string;
  total: number;
  /** The operation row's counts. */
  counts: { done: number; failed: number; skipped: number };
  /** The items' statuses, counted. */
  items: { done: number; failed: number; skipped: number; pending: number };
  /** Targets of items that are not pending with no effect (for a finished operation: every target with none). */
  lost: number;
  /** Targets with more than one effect. */
  doubled: number;
  /** Done items whose result is not the one effect of their target. */
  mismatched: number;
  /** done + failed + skipped + pending = total on the row, and the row's counts equal the items'. */
  countsAddUp: boolean;
  statusMatchesItems: boolean;
  /** The outcomes recorded on the row, and the lease epoch (claims + 1); absent on a tree without them. */
  recorded?: Record<string, number>;
}

async function publishAll(server: ChaosServer, event: 'work' | 'doomed', prefix: string, n: number): Promise<void> {
  for (let first = 0; first < n; first += 100) {
    const requests = Array.from({ length: Math.min(100, n - first) }, (_, i) => ({ method: 'event.publish', params: { event_name: event, payload: { key: `${prefix}-${first + i}` } } }));
    const answers = await cluster.batch(server.url, requests);
    expect(answers.filter((a) => !a.result)).toEqual([]);
  }
}

/** A dry run then an apply through `node`; the operation id. */
async function apply(server: ChaosServer, kind: 'redrive' | 'replay', filter: Record<string, unknown>, rate: number, since?: string): Promise<string> {
  const method = kind === 'redrive' ? 'event.redrive' : 'event.replay';
  const selection = { filter, ...(since ? { since } : {}) };
  const estimate = await cluster.ok(server, method, { dry_run: true, ...selection });
  expect(estimate.plan.to_send).toBe(kind === 'redrive' ? REDRIVE_ITEMS : REPLAY_ITEMS);
  const applied = await cluster.ok(server, method, { dry_run: false, ...selection, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: rate });
  return applied.operation!.operation_id;
}

async function doneItems(operationId: string): Promise<number> {
  const [row] = await cluster.query<{ n: number }>(`select count(*)::int as n from operation_items where operation_id = $1 and status <> 'pending'`, [operationId]);
  return row!.n;
}

async function status(operationId: string): Promise<string> {
  const [row] = await cluster.query<{ status: string }>('select status from operations where operation_id = $1', [operationId]);
  return row!.status;
}

/** The server holding the operation's lease (undefined before one claims it, or on a tree without leases). */
async function owner(operationId: string): Promise<string | undefined> {
  try {
    const [row] = await cluster.query<{ lease_owner: string | null }>('select lease_owner from operations where operation_id = $1', [operationId]);
    return row?.lease_owner ?? undefined;
  } catch {
    return undefined;
  }
}

async function auditOperation(operationId: string, kind: 'redrive' | 'replay'): Promise<OperationAudit> {
  const [op] = await cluster.query<{ status: string; total: number; done: number; failed: number; skipped: number }>(
    'select status, total::int, done::int, failed::int, skipped::int from operations where operation_id = $1',
    [operationId],
  );
  const items = await cluster.query<{ target_id: string; status: string; result_id: string | null }>('select target_id, status, result_id from operation_items where operation_id = $1', [operationId]);
  const effects =
    kind === 'replay'
      ? await cluster.query<{ target_id: string; result_id: string }>(`select replay_of_event_id as target_id, event_id as result_id from events where source = $1`, [`replay:${operationId}`])
      : await cluster.query<{ target_id: string; result_id: string }>(
          `select d.redrive_of_dead_letter_id as target_id, d.delivery_id as result_id from deliveries d
           join operation_items i on i.target_id = d.redrive_of_dead_letter_id where i.operation_id = $1`,
          [operationId],
        );
  const effectsOf = new Map<string, string[]>();
  for (const e of effects) effectsOf.set(e.target_id, [...(effectsOf.get(e.target_id) ?? []), e.result_id]);
  const tally = { done: 0, failed: 0, skipped: 0, pending: 0 };
  let lost = 0;
  let doubled = 0;
  let mismatched = 0;
  const finished = op!.status !== 'running' && op!.status !== 'paused';
  for (const item of items) {
    tally[item.status as keyof typeof tally]++;
    const sent = effectsOf.get(item.target_id) ?? [];
    if (sent.length > 1) doubled++;
    // A cancelled operation leaves its pending items unsent; anything else must have its one effect.
    if (sent.length === 0 && (item.status !== 'pending' || (finished && op!.status !== 'cancelled'))) lost++;
    if (item.status === 'done' && (sent.length !== 1 || sent[0] !== item.result_id)) mismatched++;
  }
  const counts = { done: op!.done, failed: op!.failed, skipped: op!.skipped };
  const countsAddUp =
    counts.done + counts.failed + counts.skipped + tally.pending === op!.total &&
    items.length === op!.total &&
    counts.done === tally.done &&
    counts.failed === tally.failed &&
    counts.skipped === tally.skipped;
  const statusMatchesItems =
    op!.status === 'completed'
      ? tally.pending === 0 && tally.failed === 0
      : op!.status === 'completed_with_failures'
        ? tally.pending === 0
        : op!.status === 'cancelled'
          ? true
          : tally.pending > 0;
  let recorded: Record<string, number> | undefined;
  try {
    [recorded] = await cluster.query<Record<string, number>>(
      'select delivered::int, dead_lettered::int, outcome_cancelled::int as cancelled, outcome_pending::int as pending, lease_epoch::int from operations where operation_id = $1',
      [operationId],
    );
  } catch {
    recorded = undefined;
  }
  // Where outcomes are recorded: completed means nothing re-failed, completed_with_failures that something did.
  const honest =
    !recorded ||
    (op!.status === 'completed' ? recorded.dead_lettered === 0 && recorded.pending === 0 : op!.status === 'completed_with_failures' ? counts.failed + recorded.dead_lettered! > 0 && recorded.pending === 0 : true);
  return { status: op!.status, total: op!.total, counts, items: tally, lost, doubled, mismatched, countsAddUp, statusMatchesItems: statusMatchesItems && honest, ...(recorded ? { recorded } : {}) };
}

function report(test: string, audit: OperationAudit, extra: object = {}): void {
  const parts = Object.entries({ ...extra, ...audit }).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`);
  console.log(`[chaos] ${test}: ${parts.join(' ')}`);
}

function expectExactlyOnce(audit: OperationAudit): void {
  expect({ lost: audit.lost, doubled: audit.doubled, mismatched: audit.mismatched, countsAddUp: audit.countsAddUp, statusMatchesItems: audit.statusMatchesItems }).toEqual({
    lost: 0,
    doubled: 0,
    mismatched: 0,
    countsAddUp: true,
    statusMatchesItems: true,
  });
}

async function stopAll(servers: ChaosServer[]): Promise<void> {
  for (const n of servers) if (cluster.alive(n)) await cluster.kill(n);
}

it('(a) server B joins while A sends a 1,500-item replay: every item replayed exactly once', async () => {
  const a = await cluster.start('a');
  await publishAll(a, 'work', 'join', REPLAY_ITEMS);
  expect(await waitSettled(cluster, SETTLE_MS)).toBe(true);
  // 80/s: B's boot (several seconds on a busy machine) must end while A still sends (about 19 s).
  const operationId = await apply(a, 'replay', { event_name: 'work' }, 80);
  await new Promise((r) => setTimeout(r, 2_000));
  const b = await cluster.start('b');
  const doneWhenBJoined = await doneItems(operationId);
  const finished = await waitUntil(async () => !['running', 'paused'].includes(await status(operationId)), 120_000, 250);
  await waitSettled(cluster, 60_000);
  const audit = await auditOperation(operationId, 'replay');
  report('(a) server joins during a replay', audit, { finished, doneWhenBJoined });
  await stopAll([a, b]);
  expect(doneWhenBJoined).toBeLessThan(REPLAY_ITEMS);
  expect(finished).toBe(true);
  expectExactlyOnce(audit);
  expect(audit.items.done).toBe(REPLAY_ITEMS);
}, 900_000);

/**
 * Kills the operation's owner (on a tree without leases: the live servers in turn) once it has sent
 * for ~2 s, `kills` times; each victim is started again in the background, as a supervisor would.
 */
async function killOwners(operationId: string, servers: ChaosServer[], kills: number): Promise<{ killed: string[]; doneAtKills: number[]; restarts: Promise<unknown>[] }> {
  const killed: string[] = [];
  const doneAtKills: number[] = [];
  const restarts: Promise<unknown>[] = [];
  for (let i = 0; i < kills; i++) {
    const progressed = await doneItems(operationId);
    await waitUntil(async () => (await doneItems(operationId)) > progressed || (await status(operationId)) !== 'running', 60_000, 100);
    await new Promise((r) => setTimeout(r, 2_000));
    if ((await status(operationId)) !== 'running') break;
    const ownerId = await owner(operationId);
    const alive = servers.map((n, slot) => ({ n, slot })).filter(({ n }) => cluster.alive(n));
    const pick = alive.find(({ n }) => n.serverId === ownerId) ?? alive[i % Math.max(1, alive.length)];
    if (!pick) break;
    await cluster.kill(pick.n);
    killed.push(pick.n.label);
    doneAtKills.push(await doneItems(operationId));
    restarts.push(cluster.start(pick.n.label).then((n) => (servers[pick.slot] = n)));
  }
  return { killed, doneAtKills, restarts };
}

it('(b) the owner killed every ~2 s during a 1,500-item replay: every item replayed exactly once', async () => {
  const servers = await cluster.startAll(['a', 'b']);
  await publishAll(servers[0]!, 'work', 'kill', REPLAY_ITEMS);
  expect(await waitSettled(cluster, SETTLE_MS)).toBe(true);
  const operationId = await apply(servers[0]!, 'replay', { event_name: 'work' }, 100, await latestSince('kill'));
  const { restarts, ...kills } = await killOwners(operationId, servers, 4);
  await Promise.all(restarts);
  const finished = await waitUntil(async () => !['running', 'paused'].includes(await status(operationId)), 180_000, 250);
  await waitSettled(cluster, 60_000);
  const audit = await auditOperation(operationId, 'replay');
  report('(b) owner killed during a replay', audit, { finished, ...kills });
  await stopAll(servers);
  expect(kills.killed.length).toBeGreaterThanOrEqual(3);
  expect(finished).toBe(true);
  expectExactlyOnce(audit);
  expect(audit.total).toBe(REPLAY_ITEMS);
  expect(audit.items.done).toBe(REPLAY_ITEMS);
}, 900_000);

it('(b) the owner killed every ~2 s during a 300-item redrive: every dead letter redriven exactly once', async () => {
  const servers = await cluster.startAll(['a', 'b']);
  await publishAll(servers[0]!, 'doomed', 'doomed', REDRIVE_ITEMS);
  expect(await waitSettled(cluster, SETTLE_MS)).toBe(true);
  const operationId = await apply(servers[0]!, 'redrive', { event_name: 'doomed' }, 25);
  const { restarts, ...kills } = await killOwners(operationId, servers, 4);
  await Promise.all(restarts);
  const finished = await waitUntil(async () => !['running', 'paused'].includes(await status(operationId)), 180_000, 250);
  await waitSettled(cluster, 60_000);
  const audit = await auditOperation(operationId, 'redrive');
  report('(b) owner killed during a redrive', audit, { finished, ...kills });
  await stopAll(servers);
  expect(kills.killed.length).toBeGreaterThanOrEqual(3);
  expect(finished).toBe(true);
  expectExactlyOnce(audit);
  expect(audit.total).toBe(REDRIVE_ITEMS);
  expect(audit.items.done).toBe(REDRIVE_ITEMS);
}, 900_000);

it('(c) server B cancels while A sends: nothing sent after the cancel, nothing doubled, counts add up', async () => {
  const [a, b] = await cluster.startAll(['a', 'b']);
  await publishAll(a!, 'work', 'cancel', REPLAY_ITEMS);
  expect(await waitSettled(cluster, SETTLE_MS)).toBe(true);
  const operationId = await apply(a!, 'replay', { event_name: 'work' }, 100, await latestSince('cancel'));
  await waitUntil(async () => (await doneItems(operationId)) >= 200, 60_000, 100);
  // A, the owner, stops once its next fence is refused: its /metrics count that.
  const stoppedOnA = () => scrapedValue(a!.url, CHAOS_TOKEN, 'switchboard_operations_dropped_total', { reason: 'stopped' });
  const stoppedBefore = await stoppedOnA();
  const cancel = await cluster.ok(b!, 'operation.cancel', { operation_id: operationId });
  const atCancel = await doneItems(operationId);
  expect(await waitUntil(async () => (await stoppedOnA()) > stoppedBefore, 30_000, 100)).toBe(true);
  const later = await doneItems(operationId);
  await waitSettled(cluster, 60_000);
  const audit = await auditOperation(operationId, 'replay');
  report('(c) cancel from another server', audit, { cancelled: cancel.cancelled, atCancel, later });
  await stopAll([a!, b!]);
  expect(cancel.cancelled).toBe(true);
  expect(audit.status).toBe('cancelled');
  expect(later).toBe(atCancel);
  expect(audit.items.pending).toBeGreaterThan(0);
  expectExactlyOnce(audit);
}, 900_000);

/** The creation time of the first event of a key prefix: a filter's `since` that leaves earlier tests' events out. */
async function latestSince(prefix: string): Promise<string> {
  const [row] = await cluster.query<{ created_at: string }>(`select min(created_at) as created_at from events where event_name = 'work' and payload::json->>'key' like $1`, [`${prefix}-%`]);
  return row!.created_at;
}
