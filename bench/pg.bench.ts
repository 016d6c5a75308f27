/**
 * npm run bench:pg: issue #10's targets for several server processes ("nodes") on one PostgreSQL
 * database, each beside the same figure on SQLite (one node, the embedded default) measured in the
 * same run: real servers as fresh processes, the two engines alternating round by round (the order
 * flips every round), the load average per round, then medians, ratios and a summary table. Only
 * ratios taken in one run mean anything on a shared machine.
 *
 * Per round and engine, on a fresh database (PostgreSQL: a new database, template0, C collation,
 * dropped after; SQLite: a new folder), with 2 nodes on PostgreSQL and 1 on SQLite:
 *   drain      BENCH_DELIVERIES (20,000) publishes queued before the nodes start, not yet due; once
 *              every node is up they are made due at once: deliveries claimed, run by a no-op
 *              node (a transform emitting an event nobody subscribes to) and completed, per second,
 *              from the first completion to the last (the completions' own timestamps). Before
 *              them, BENCH_WARMUP_DELIVERIES (10,000) more, queued with them, are drained the same
 *              way untimed (their figure is printed per round, without a verdict).
 *   latency    100 publishes/s through node A's HTTP API for BENCH_SECONDS (5), after
 *              BENCH_WARMUP_SECONDS (30) of the same untimed (printed per round): from the publish
 *              call's start (here) to the handler's outcome timestamp (the delivery's updated_at,
 *              stamped by whichever node ran it as it applies the handler's result): an upper
 *              bound of publish-to-handler-start.
 *              On PostgreSQL also the claim path alone: the same rate written by a runtime in this
 *              process that runs no dispatcher, so each delivery waits for a node's claim (printed
 *              per round; not a target row).
 *   change     a WebSocket on node B holding a heartbeat subscription; BENCH_CHANGE_SAMPLES (50)
 *              publishes through node A, 200 ms apart: time from the publish call's start to B's
 *              `runtime.changed` naming events, and to B's event.list showing the event (polled
 *              every 10 ms). On SQLite both are the one node.
 *   publish    durable event.publish over HTTP for BENCH_SECONDS, autocannon at 64 connections in
 *              all, split evenly across the nodes' ports, after BENCH_HTTP_WARMUP_SECONDS (5) of
 *              the same untimed (printed per round). Also, as a third contender in the same
 *              rounds, the tree at BENCH_DATAPATH_REF (fe3e12b, the end of the data-path issue #9,
 *              whose single-node SQLite figure is issue #10's publish target) on SQLite: a git
 *              worktree of that commit with this checkout's node_modules linked in, a fresh folder
 *              per round, the same load; the events it stored are counted after each round.
 *              Before round 1 the load generator (in this process) runs 3 s untimed against a
 *              server of its own, so that no side is measured with its JIT still cold.
 * And per round, on one database of BENCH_EVENTS (1,000,000) events per engine, filled once
 * (concurrently, before the rounds) and served by one node: event.list 50-row pages, one filter
 * at a time, page 1 and page 100, p99 over BENCH_LIST_REQUESTS (300) reads after 100 untimed ones,
 * from the store layer (in this process) and over HTTP at 1 connection (each request timed by a
 * client process of its own, bench/list-client.ts, one per server: on the wire, as wrk times a
 * request, and, for comparison, through Node's http client).
 *
 * Environment: BENCH_DATABASE_URL (a PostgreSQL role that may create databases; default: the
 * local test cluster, scripts/test-postgres.mjs), BENCH_ROUNDS (3), BENCH_SECONDS (5),
 * BENCH_DELIVERIES, BENCH_WARMUP_DELIVERIES, BENCH_WARMUP_SECONDS and BENCH_HTTP_WARMUP_SECONDS
 * (0 for a cold start), BENCH_CHANGE_SAMPLES, BENCH_EVENTS, BENCH_LIST_REQUESTS, BENCH_SCENARIOS
 * (nodes,list), BENCH_DIR (keep the filled SQLite store there and reuse it), BENCH_PG_DATABASE (name of a
 * PostgreSQL database to keep the filled events in and reuse), BENCH_DATAPATH_REF (the data-path
 * baseline's commit; empty to leave it out).
 */
import type { ChildProcess } from 'node:child_process';
import { fork, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import WebSocket from 'ws';
import { Store, type Clock, type EventFilter } from '@switchboard/store';
import { databaseOf, databaseOfTransaction } from '@switchboard/store/testing';
import { Runtime } from '@switchboard/runtime';
import { LIST_FILTERS } from './list-filters';
import type { ListJob, ListTimes } from './list-client';
import { loadAverage, median, startProcess, stop, stopAll } from './rounds';
import { RpcClient } from './rpc-client';

const root = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/**
 * The timed drain. 5,000 took about 1 s on two nodes, and one engine's rounds spread from 4,082 to
 * 6,757/s within one run (session of 2026-11-26): a second of a shared 2-core machine is mostly
 * its neighbours' noise. 20,000 (about 4 s) measures a sustained rate.
 */
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const CHANGE_SAMPLES = Number(process.env.BENCH_CHANGE_SAMPLES ?? 50);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 300);
/**
 * Untimed reads before each case's timed ones. The target is a steady-state p99, and each round's
 * server is a fresh process: over its first 150 pages its p50 falls from about 4.5 to 3 ms while V8
 * optimizes the path, so with 10 the first case's p99 measured the warm-up (5 of its 13 reads over
 * 7 ms fell in the first 50).
 */
const LIST_WARMUP = 100;
/**
 * Untimed work of the same shape before the drain and the latency phase, for the same reason: the
 * targets are rates and latencies of a server that has been running, and each round's nodes are
 * fresh processes. Timed cold, 2 nodes (scratch runs, one after the other): the drain rose from
 * about 320 to 450-570 deliveries per 100 ms over its first seconds as V8 optimized the claim and
 * completion path (3,400-3,800/s cold, 4,200-5,400/s after 3,000 untimed), and publish -> handler
 * at 100/s had p50 5.5-7.6 ms over a server's first 5 s and 4.5-6.2 ms after 5 s more. The cold
 * figures are still printed per round.
 *
 * The drain's claim and completion run once per batch of up to 64 deliveries, so 2,000 untimed
 * deliveries are some 16 calls per node of each: too few. 2 nodes (scratch/lat.ts): completions
 * per 100 ms rose from about 250 to 500-640 over the first 10,000 deliveries after start, and a
 * drain timed after 2,000 untimed still climbed from about 250 per 100 ms (4,288 and 5,388/s);
 * after 12,000 untimed the next 5,000 ran at 512-640 per 100 ms from their start (5,342 and
 * 5,727/s). So 10,000 are drained untimed first.
 *
 * The publish path warms up far more slowly than the drain: at 100/s each publish is a group and a
 * completion of its own, so the functions it runs are called a few hundred times a second, and V8
 * takes tens of seconds to optimize them. 10 s at 100/s through node A of 2 (scratch/lat.ts, one
 * run after the other): after 3 s untimed, p50 6.8 ms, p99 27.7 ms, node A 5.7 ms of CPU per
 * publish; after 30 s untimed, p50 4.0 ms, p99 14.7 ms, 4.1 ms of CPU. `perf` of node A over a
 * server's first seconds: most of its main thread in V8's inline-cache builtins (Builtins_LoadIC,
 * baseline code) and a quarter of its samples on TurboFan's compiler threads, still compiling
 * hundreds of functions 15 s in. So the latency phase publishes for 30 s untimed first.
 */
const WARMUP_DELIVERIES = Number(process.env.BENCH_WARMUP_DELIVERIES ?? 10_000);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 30);
/**
 * The same load, untimed, before each timed HTTP publish figure, on every contender (the nodes of
 * both engines and the data-path baseline). Without it node B met that load cold (the latency
 * phase publishes through node A only; B served fewer publishes than A in each round of a run,
 * 310-775 against 449-892/s) and the data-path baseline was measured from its server's first
 * request.
 */
const HTTP_WARMUP_SECONDS = Number(process.env.BENCH_HTTP_WARMUP_SECONDS ?? 5);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'nodes,list').split(',');
const DATAPATH_REF = process.env.BENCH_DATAPATH_REF ?? 'fe3e12b';
const TOKEN = 'sbk_bench_pg_token_000000000001';
const LATENCY_RATE = 100;
const HTTP_CONNECTIONS = 64;
const CHANGE_SPACING_MS = 200;
const CHANGE_TIMEOUT_MS = 5000;
const LIST_POLL_MS = 10;
const PAGE = 50;
const DEEP_PAGE = 100;

type Engine = 'postgres' | 'sqlite';
const ENGINES: Engine[] = ['postgres', 'sqlite'];
const NODES: Record<Engine, number> = { postgres: 2, sqlite: 1 };
const label = (engine: Engine) => (engine === 'postgres' ? 'postgres, 2 nodes' : 'sqlite, 1 node');

/** Wall-clock milliseconds with a fraction, comparable with the servers' ISO timestamps (same machine). */
const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

// ---------------------------------------------------------------------------------------------
// PostgreSQL databases and SQLite folders this run made, removed however it ends.

const adminUrl = await findAdminUrl();
const madeDatabases = new Set<string>();
const madeDirs = new Set<string>();
/** Fill processes still running (startProcess's servers are tracked by rounds.ts). */
const fills = new Set<ChildProcess>();

async function findAdminUrl(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const { findTestPostgres } = (await import(path.join(root, 'scripts/test-postgres.mjs'))) as { findTestPostgres: () => { url?: string; reason?: string } };
  const found = findTestPostgres();
  if (!found.url) {
    console.error(`bench:pg needs PostgreSQL (set BENCH_DATABASE_URL to a role that may create databases): ${found.reason}`);
    process.exit(1);
  }
  return found.url;
}

async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function urlOf(database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function databaseExists(name: string): Promise<boolean> {
  return asAdmin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);
}

/** Like the tests' databases: C collation, so text order is byte order as on SQLite. */
async function createDatabase(name: string, dropAfter = true): Promise<string> {
  await asAdmin((c) => c.query(`create database "${name}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`));
  if (dropAfter) madeDatabases.add(name);
  return urlOf(name);
}

async function dropDatabase(name: string): Promise<void> {
  const { dropDatabase: drop } = (await import(path.join(root, 'scripts/test-postgres.mjs'))) as typeof import('../scripts/test-postgres.mjs');
  await asAdmin((c) => drop(c, name));
  madeDatabases.delete(name);
}

function makeDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.add(dir);
  return dir;
}

function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  madeDirs.delete(dir);
}

/** Worktrees this run added (the data-path baseline), removed with their folders. */
const madeWorktrees = new Set<string>();

async function cleanUp(): Promise<void> {
  await Promise.all([stopAll(), ...[...fills].map((child) => stop(child, 5_000))]);
  for (const dir of madeWorktrees) spawnSync('git', ['-C', root, 'worktree', 'remove', '--force', dir]);
  for (const name of madeDatabases) await dropDatabase(name).catch((err: Error) => console.error(`could not drop database ${name}: ${err.message}`));
  for (const dir of madeDirs) removeDir(dir);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the servers and dropping this run's databases`);
    void cleanUp().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// The bench bundle and JSON-RPC over HTTP.

const workDir = makeDir('switchboard-bench-pg-');
const BUNDLE_PATH = path.join(workDir, 'bundle.json');
fs.writeFileSync(
  BUNDLE_PATH,
  JSON.stringify({
    name: 'pg-bench',
    version: '1',
    runtime: { max_attempts: 3, backoff_ms: 10, max_chain_depth: 4, lease_ms: 30_000, handler_timeout_ms: 5_000 },
    events: {
      work: { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'noop' }] },
      'work.done': { payload_schema: { type: 'object' }, subscribers: [] },
      // No subscriber: a publish is one change, so the change figure times that change alone.
      note: { payload_schema: { type: 'object' }, subscribers: [] },
    },
    nodes: { noop: { kind: 'transform', emit: 'work.done' } },
  }),
);

function serverEnv(engine: Engine, target: { databaseUrl?: string; dataDir?: string }, bundle: string | undefined): Record<string, string> {
  return {
    // Empty means unset: a SQLite server must not pick up a SWITCHBOARD_DATABASE_URL from this shell.
    SWITCHBOARD_DATABASE_URL: engine === 'postgres' ? target.databaseUrl! : '',
    SWITCHBOARD_DATA_DIR: engine === 'sqlite' ? target.dataDir! : path.join(workDir, 'unused-data'),
    SWITCHBOARD_TOKEN: TOKEN,
    SWITCHBOARD_BUNDLE: bundle ?? '',
    SWITCHBOARD_DEMO: 'off',
    SWITCHBOARD_LOG_LEVEL: 'info',
    // The limiter runs, with a budget this benchmark cannot spend.
    SWITCHBOARD_RATE_LIMIT_PER_S: '100000000',
  };
}

// ---------------------------------------------------------------------------------------------
// Nodes on a fresh database: drain, latency, change visibility, HTTP publishes.

interface Cluster {
  engine: Engine;
  store: Store;
  nodes: RpcClient[];
  children: ChildProcess[];
  dispose(): Promise<void>;
}

let databaseCount = 0;

async function freshCluster(engine: Engine): Promise<Cluster> {
  let target: { databaseUrl?: string; dataDir?: string };
  let removeDatabase: () => Promise<void>;
  if (engine === 'postgres') {
    const name = `sb_bench_pg_${process.pid}_${++databaseCount}`;
    target = { databaseUrl: await createDatabase(name) };
    removeDatabase = () => dropDatabase(name);
  } else {
    const dir = makeDir('switchboard-bench-pg-sqlite-');
    target = { dataDir: dir };
    removeDatabase = async () => removeDir(dir);
  }
  const store = await Store.open(target);
  // What each server would do at boot; done once here so that nodes starting together do not race to create it.
  await store.tokens.create('env:SWITCHBOARD_TOKEN', { secret: TOKEN });
  await queueBacklog(store);
  const started = await Promise.all(Array.from({ length: NODES[engine] }, () => startProcess('apps/server/src/main.ts', serverEnv(engine, target, BUNDLE_PATH), root)));
  const nodes = started.map((s) => new RpcClient(s.port, TOKEN));
  const deadline = Date.now() + 30_000;
  while (((await nodes[0]!.call('health.check')) as { nodes: unknown[] }).nodes.length < nodes.length) {
    if (Date.now() > deadline) throw new Error(`health.check did not list ${nodes.length} live nodes within 30 s`);
    await sleep(100);
  }
  return {
    engine,
    store,
    nodes,
    children: started.map((s) => s.child),
    async dispose() {
      for (const n of nodes) n.close();
      await Promise.all(started.map((s) => stop(s.child)));
      await store.close();
      await removeDatabase();
    },
  };
}

const BACKLOG_AHEAD_MS = 24 * 3600_000;

/**
 * The drain's backlog (its untimed part too), published through the runtime (dispatcher not
 * started) with a clock a day ahead: every delivery exists, committed, but none is due until
 * drainBacklog makes them due, once all nodes are up.
 */
async function queueBacklog(store: Store): Promise<void> {
  const dayAhead: Clock = { now: () => new Date(Date.now() + BACKLOG_AHEAD_MS) };
  const runtime = await Runtime.boot({ store, bundlePath: BUNDLE_PATH, autoStart: false, clock: dayAhead });
  const queued = WARMUP_DELIVERIES + DELIVERIES;
  for (let i = 0; i < queued; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, queued - i) }, (_, j) => runtime.publish({ event_name: 'work', payload: { n: i + j } })));
  }
  await runtime.stop();
}

/**
 * Whether any delivery is open, each status read through its own index (PostgreSQL's partial claim
 * indexes): one row at most. Counting them instead (openCount) read every open row on each 50 ms
 * poll, 3.5 ms of PostgreSQL's CPU a call with 5,000 open and 18 ms with 20,000, taken from the
 * nodes being measured. The backlog not yet made due (BACKLOG_AHEAD_MS) does not count; a retry
 * waiting for its backoff (milliseconds to seconds) does.
 */
async function anyOpenDelivery(store: Store): Promise<boolean> {
  const db = databaseOf(store);
  const parkedFrom = new Date(Date.now() + BACKLOG_AHEAD_MS / 2).toISOString();
  const pending = await db.selectFrom('deliveries').select('delivery_id').where('status', '=', 'pending').where('next_attempt_at', '<', parkedFrom).limit(1).executeTakeFirst();
  if (pending !== undefined) return true;
  return (await db.selectFrom('deliveries').select('delivery_id').where('status', '=', 'in_progress').limit(1).executeTakeFirst()) !== undefined;
}

/** Waits for the nodes to finish every open delivery; the figures come from the rows' timestamps, not from when this noticed. */
async function untilNoOpenDelivery(store: Store, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await anyOpenDelivery(store)) {
    if (Date.now() > deadline) throw new Error(`deliveries still open after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

interface Drain {
  perSecond: number;
  delivered: number;
  failed: number;
}

/** The untimed part of the backlog (WARMUP_DELIVERIES, the first by id), then the rest, timed. */
async function drainBacklog(c: Cluster): Promise<{ warmup?: Drain; timed: Drain }> {
  const warmup = WARMUP_DELIVERIES > 0 ? await drainDue(c, WARMUP_DELIVERIES) : undefined;
  return { warmup, timed: await drainDue(c) };
}

/**
 * Makes `limit` (all when undefined) of the backlog due at once and waits until the nodes finished
 * them; the figure counts completions stamped from then on, so an earlier drain is not in it.
 */
async function drainDue(c: Cluster, limit?: number): Promise<Drain> {
  const db = databaseOf(c.store);
  const since = new Date().toISOString();
  // Recorded as a change of deliveries, as another process's write of deliveries is: the nodes
  // hear of it and claim now. Unrecorded, each node found the backlog at its next idle poll (up to
  // 250 ms apart), and the figure counted the later one's wait from the first completion on.
  await c.store.transaction(async (tx) => {
    c.store.changes.mark(tx, 'deliveries');
    const trx = databaseOfTransaction(tx);
    let makeDue = trx.updateTable('deliveries').set({ next_attempt_at: since }).where('status', '=', 'pending');
    if (limit !== undefined) makeDue = makeDue.where('delivery_id', 'in', trx.selectFrom('deliveries').select('delivery_id').where('status', '=', 'pending').orderBy('delivery_id').limit(limit));
    await makeDue.execute();
  });
  await untilNoOpenDelivery(c.store, 300_000);
  const done = await db
    .selectFrom('deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('updated_at').as('first'), eb.fn.max('updated_at').as('last')])
    .where('subscriber_id', '=', 'noop')
    .where('status', '=', 'delivered')
    .where('updated_at', '>=', since)
    .executeTakeFirstOrThrow();
  // Pending ones left are the backlog's timed part, not yet due.
  const failed = await db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'not in', ['delivered', 'pending']).executeTakeFirstOrThrow();
  const windowMs = Math.max(1, Date.parse(String(done.last)) - Date.parse(String(done.first)));
  return { perSecond: (Number(done.n) * 1000) / windowMs, delivered: Number(done.n), failed: Number(failed.n) };
}

interface Latency {
  p50: number;
  p99: number;
  ackP50: number;
  published: number;
}

/** A latency publish through node A's HTTP API. */
const viaNodeA = (c: Cluster) => () => c.nodes[0]!.call('event.publish', { event_name: 'work', payload: { latency: true } }) as Promise<{ event_id: string }>;

/**
 * LATENCY_RATE publishes/s through `publish` for WARMUP_SECONDS, then for BENCH_SECONDS: for each
 * part, the time from each call's start to its delivery's outcome timestamp.
 */
async function publishToHandler(c: Cluster, publish: () => Promise<{ event_id: string }>): Promise<{ warmup?: Latency; timed: Latency }> {
  const warmup = WARMUP_SECONDS > 0 ? await publishAtRate(c, publish, WARMUP_SECONDS) : undefined;
  return { warmup, timed: await publishAtRate(c, publish, SECONDS) };
}

async function publishAtRate(c: Cluster, publish: () => Promise<{ event_id: string }>, seconds: number): Promise<Latency> {
  const sent: Promise<{ eventId: string; startedAt: number; ackMs: number }>[] = [];
  const until = nowMs() + seconds * 1000;
  let next = nowMs();
  while (nowMs() < until) {
    const startedAt = nowMs();
    sent.push(publish().then((r) => ({ eventId: r.event_id, startedAt, ackMs: nowMs() - startedAt })));
    next += 1000 / LATENCY_RATE;
    await sleep(Math.max(0, next - nowMs()));
  }
  const published = await Promise.all(sent);
  await untilNoOpenDelivery(c.store, 60_000);
  const startedAt = new Map(published.map((p) => [p.eventId, p.startedAt]));
  const latencies: number[] = [];
  for (let i = 0; i < published.length; i += 500) {
    const rows = await databaseOf(c.store)
      .selectFrom('deliveries')
      .select(['event_id', 'updated_at'])
      .where('event_id', 'in', published.slice(i, i + 500).map((p) => p.eventId))
      .where('status', '=', 'delivered')
      .execute();
    for (const r of rows) latencies.push(Date.parse(r.updated_at) - startedAt.get(r.event_id)!);
  }
  if (latencies.length !== published.length) throw new Error(`${published.length} published, ${latencies.length} delivered`);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), ackP50: percentile(published.map((p) => p.ackMs), 50), published: published.length };
}

/**
 * The same latency when no node can take the delivery as it is written: the publishes are written
 * by a runtime in this process that runs no dispatcher, so every delivery is claimed by a node
 * that learns of it from the change feed. (Through node A, A runs what it has room for itself.)
 */
async function claimedLatency(c: Cluster): Promise<{ warmup?: Latency; timed: Latency }> {
  const publisher = await Runtime.boot({ store: c.store, bundlePath: BUNDLE_PATH, autoStart: false });
  try {
    return await publishToHandler(c, () => publisher.publish({ event_name: 'work', payload: { latency: true } }));
  } finally {
    await publisher.stop();
  }
}

/** `runtime.changed` notifications on one WebSocket holding a heartbeat subscription. */
class ChangeWatch {
  private readonly arrivals: { at: number; kinds: unknown }[] = [];
  private readonly waiting = new Set<() => void>();
  notifications = 0;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const at = nowMs();
      const message = JSON.parse(String(data)) as { method?: string; params?: { kinds?: unknown } };
      if (message.method !== 'runtime.changed') return;
      this.notifications++;
      this.arrivals.push({ at, kinds: message.params?.kinds });
      for (const wake of this.waiting) wake();
    });
  }

  static open(port: number): Promise<ChangeWatch> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ws`, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.subscribe' })));
      const onReply = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
        if (message.id !== 1) return;
        socket.off('message', onReply);
        if (message.error) reject(new Error(`health.subscribe: ${message.error.message}`));
        else resolve(new ChangeWatch(socket));
      };
      socket.on('message', onReply);
    });
  }

  /** When the first notification naming events arrived at or after `since`; undefined after `timeoutMs`. */
  async eventsChangedSince(since: number, timeoutMs: number): Promise<number | undefined> {
    const deadline = nowMs() + timeoutMs;
    for (;;) {
      const hit = this.arrivals.find((a) => a.at >= since && Array.isArray(a.kinds) && a.kinds.includes('events'));
      if (hit) return hit.at;
      const left = deadline - nowMs();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiting.add(wake);
      });
    }
  }

  close(): void {
    this.socket.terminate();
  }
}

interface ChangeFigures {
  changed?: { p50: number; p99: number; missed: number };
  /** Why there is no runtime.changed figure. */
  changedUnavailable?: string;
  listed: { p50: number; p99: number; missed: number };
  samples: number;
}

/** Engines on which no runtime.changed came: later rounds do not wait for it again. */
const changedUnavailable = new Map<Engine, string>();

async function changeVisibility(c: Cluster, round: number): Promise<ChangeFigures> {
  const a = c.nodes[0]!;
  const b = c.nodes[c.nodes.length - 1]!;
  const poller = new RpcClient(b.port, TOKEN, 1);
  const watch = await ChangeWatch.open(b.port);
  const changed: number[] = [];
  const listed: number[] = [];
  let changedMissed = 0;
  let listedMissed = 0;
  try {
    for (let i = 0; i < CHANGE_SAMPLES; i++) {
      const entityId = `change-${c.engine}-${round}-${i}`;
      const startedAt = nowMs();
      const watching = !changedUnavailable.has(c.engine);
      const [, changedAt, listedAt] = await Promise.all([
        a.call('event.publish', { event_name: 'note', entity_id: entityId }),
        watching ? watch.eventsChangedSince(startedAt, CHANGE_TIMEOUT_MS) : undefined,
        pollUntilListed(poller, entityId, CHANGE_TIMEOUT_MS),
      ]);
      if (watching && changedAt === undefined && changed.length === 0) {
        changedUnavailable.set(
          c.engine,
          watch.notifications === 0
            ? `no runtime.changed arrived within ${CHANGE_TIMEOUT_MS / 1000} s (the feature is not on this branch)`
            : `${watch.notifications} runtime.changed arrived, none naming events within ${CHANGE_TIMEOUT_MS / 1000} s`,
        );
      } else if (watching && changedAt === undefined) changedMissed++;
      else if (changedAt !== undefined) changed.push(changedAt - startedAt);
      if (listedAt === undefined) listedMissed++;
      else listed.push(listedAt - startedAt);
      await sleep(Math.max(0, startedAt + CHANGE_SPACING_MS - nowMs()));
    }
  } finally {
    watch.close();
    poller.close();
  }
  const unavailable = changedUnavailable.get(c.engine);
  return {
    ...(unavailable && changed.length === 0 ? { changedUnavailable: unavailable } : { changed: { p50: percentile(changed, 50), p99: percentile(changed, 99), missed: changedMissed } }),
    listed: { p50: percentile(listed, 50), p99: percentile(listed, 99), missed: listedMissed },
    samples: CHANGE_SAMPLES,
  };
}

/** Reads event.list on one node every LIST_POLL_MS until it shows the entity's event; when it did (undefined after `timeoutMs`). */
async function pollUntilListed(node: RpcClient, entityId: string, timeoutMs: number): Promise<number | undefined> {
  const deadline = nowMs() + timeoutMs;
  while (nowMs() < deadline) {
    const started = nowMs();
    const page = (await node.call('event.list', { filter: { entity_id: entityId }, limit: 1 })) as { events: unknown[] };
    if (page.events.length > 0) return nowMs();
    await sleep(Math.max(0, started + LIST_POLL_MS - nowMs()));
  }
  return undefined;
}

interface Publishes {
  rps: number;
  p99: number;
  /** Publishes answered with success (2xx). */
  answered: number;
  errors: number;
  perNode: number[];
}

let publishCounter = 0;
const publishBody = () => `{"jsonrpc":"2.0","id":${++publishCounter},"method":"event.publish","params":{"event_name":"work","payload":{"n":${publishCounter}}}}`;

/**
 * HTTP_WARMUP_SECONDS of the load untimed, then SECONDS timed: the timed figures, with `answered`
 * and `errors` counting both parts (every answer is checked, every publish is a stored event), and
 * the end of a round line (errors, the untimed rate).
 */
async function warmHttpPublishes(ports: readonly number[]): Promise<{ publishes: Publishes; tail: string }> {
  const warmup = HTTP_WARMUP_SECONDS > 0 ? await httpPublishes(ports, HTTP_WARMUP_SECONDS) : undefined;
  const timed = await httpPublishes(ports);
  const publishes = { ...timed, answered: timed.answered + (warmup?.answered ?? 0), errors: timed.errors + (warmup?.errors ?? 0) };
  const tail = `${publishes.errors ? `, ${publishes.errors} ERRORS` : ''}${warmup ? `; the ${HTTP_WARMUP_SECONDS} s untimed before them ${count(warmup.rps)} events/s` : ''}`;
  return { publishes, tail };
}

async function httpPublishes(ports: readonly number[], seconds = SECONDS): Promise<Publishes> {
  const connections = Math.floor(HTTP_CONNECTIONS / ports.length);
  const results = await Promise.all(
    ports.map((port) =>
      autocannon({
        url: `http://127.0.0.1:${port}/v1/rpc`,
        connections,
        duration: seconds,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        requests: [{ setupRequest: (req) => ({ ...req, body: publishBody() }) }],
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    answered: results.reduce((sum, r) => sum + r['2xx'], 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.non2xx + r.timeouts, 0),
    perNode: results.map((r) => r.requests.average),
  };
}

/**
 * The load generator runs in this process, and its first run would also be its JIT's warm-up: a
 * side measured first in round 1 (PostgreSQL) would be measured with a colder generator than every
 * other. So it runs first, untimed, against an answering server of this process's own.
 */
async function warmLoadGenerator(): Promise<number> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return (await httpPublishes([(server.address() as { port: number }).port], 3)).rps;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

interface NodesRound {
  drain: Drain;
  latency: Latency;
  /** The untimed parts before them, for the per-round lines. */
  coldDrain?: Drain;
  coldLatency?: Latency;
  change: ChangeFigures;
  publishes: Publishes;
}

const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : '-');
const count = (x: number) => Math.round(x).toLocaleString('en');

async function nodesRound(engine: Engine, round: number): Promise<NodesRound> {
  const c = await freshCluster(engine);
  try {
    const tag = `  round ${round} ${label(engine)}`;
    const drains = await drainBacklog(c);
    const drain = drains.timed;
    const firstDrain = drains.warmup ? `; the ${count(drains.warmup.delivered)} untimed before them ${count(drains.warmup.perSecond)}/s` : '';
    console.log(`${tag}: drain ${count(drain.delivered)} deliveries ${count(drain.perSecond)}/s${drain.failed ? `, ${drain.failed} NOT DELIVERED` : ''}${firstDrain} (load ${loadAverage()})`);
    const untimed = (l: Latency | undefined) => (l ? `; the ${l.published} untimed before them p50 ${ms(l.p50)} p99 ${ms(l.p99)}` : '');
    const latencies = await publishToHandler(c, viaNodeA(c));
    const latency = latencies.timed;
    console.log(`${tag}: ${latency.published} publishes at ${LATENCY_RATE}/s via node A, publish call -> handler p50 ${ms(latency.p50)} p99 ${ms(latency.p99)} (ack p50 ${ms(latency.ackP50)})${untimed(latencies.warmup)} (load ${loadAverage()})`);
    if (engine === 'postgres') {
      const claimed = await claimedLatency(c);
      console.log(`${tag}: ${claimed.timed.published} publishes at ${LATENCY_RATE}/s written by this process (no dispatcher), each claimed by a node: publish call -> handler p50 ${ms(claimed.timed.p50)} p99 ${ms(claimed.timed.p99)}${untimed(claimed.warmup)} (load ${loadAverage()})`);
    }
    const change = await changeVisibility(c, round);
    const where = engine === 'postgres' ? 'published via A, seen on B' : 'published and seen on the one node';
    console.log(
      `${tag}: change ${where}: runtime.changed ${change.changed ? `p50 ${ms(change.changed.p50)} p99 ${ms(change.changed.p99)}${change.changed.missed ? `, ${change.changed.missed} missed` : ''}` : `unavailable: ${change.changedUnavailable}`}; event.list poll p50 ${ms(change.listed.p50)} p99 ${ms(change.listed.p99)}${change.listed.missed ? `, ${change.listed.missed} NOT SEEN` : ''} (${change.samples} samples, load ${loadAverage()})`,
    );
    const { publishes, tail } = await warmHttpPublishes(c.nodes.map((n) => n.port));
    console.log(
      `${tag}: http event.publish ${HTTP_CONNECTIONS}c (${publishes.perNode.map(count).join(' + ')}) ${count(publishes.rps)} events/s, p99 ${publishes.p99} ms${tail} (load ${loadAverage()})`,
    );
    return { drain, latency, change, publishes, coldDrain: drains.warmup, coldLatency: latencies.warmup };
  } finally {
    await c.dispose();
  }
}

/**
 * The data-path baseline's tree, ready to run: a worktree of `ref` with this checkout's
 * node_modules hard-linked in (its workspace links are relative, so they name the worktree's own
 * packages). Undefined, with the reason printed, when the commit is not in this clone.
 */
function datapathTree(ref: string): string | undefined {
  const dir = makeDir('switchboard-bench-pg-datapath-');
  const added = spawnSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, ref], { encoding: 'utf8' });
  if (added.status !== 0) {
    console.log(`data-path baseline left out: git worktree add ${ref} failed: ${added.stderr.trim()}`);
    return undefined;
  }
  madeWorktrees.add(dir);
  const linked = spawnSync('cp', ['-al', path.join(root, 'node_modules'), path.join(dir, 'node_modules')], { encoding: 'utf8' });
  if (linked.status !== 0) throw new Error(`could not link node_modules into ${dir}: ${linked.stderr}`);
  return dir;
}

/** The data-path baseline's publish figure: one SQLite server from its tree, on a fresh folder. */
async function datapathRound(tree: string, round: number): Promise<Publishes> {
  const dataDir = makeDir('switchboard-bench-pg-datapath-data-');
  const server = await startProcess('apps/server/src/main.ts', serverEnv('sqlite', { dataDir }, BUNDLE_PATH), tree);
  let measured: { publishes: Publishes; tail: string };
  try {
    measured = await warmHttpPublishes([server.port]);
  } finally {
    await stop(server.child);
  }
  const { publishes, tail } = measured;
  // An answer is not a publish until it is stored: count what its store holds once it stopped (this
  // checkout's store opens that folder, an ancestor of its format).
  const store = await Store.open({ dataDir });
  const stored = Number((await databaseOf(store).selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('event_name', '=', 'work').executeTakeFirstOrThrow()).n);
  await store.close();
  removeDir(dataDir);
  console.log(
    `  round ${round} sqlite at ${DATAPATH_REF} (data-path end), 1 node: http event.publish ${HTTP_CONNECTIONS}c ${count(publishes.rps)} events/s, p99 ${publishes.p99} ms, ${count(stored)} events stored of ${count(publishes.answered)} answered (untimed part too)${stored < publishes.answered ? `, ${count(publishes.answered - stored)} ANSWERED BUT NOT STORED` : ''}${tail} (load ${loadAverage()})`,
  );
  return publishes;
}

// ---------------------------------------------------------------------------------------------
// event.list on a filled database: the store layer and HTTP at 1 connection.

interface ListCase {
  key: string;
  filter: EventFilter;
  /** Page 100's cursor over HTTP and position in the store; both unset for page 1. */
  cursor?: string;
  position?: unknown;
}

interface ListTarget {
  engine: Engine;
  store: Store;
  env: Record<string, string>;
  cases?: ListCase[];
}

/** Fills one database (event-list.bench.ts's data, the same on both engines) in a child process; its progress lines prefixed. */
function fill(engine: Engine, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/event-list.bench.ts'), '--fill', target], {
      cwd: root,
      env: { ...process.env, BENCH_EVENTS: String(EVENTS) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    fills.add(child);
    child.once('exit', () => fills.delete(child));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d.toString().replace(/^(?=.)/gm, `  [${engine} fill] `)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve((JSON.parse(out) as { ms: number }).ms) : reject(new Error(`${engine} fill exited with ${code}`))));
  });
}

async function listTargets(): Promise<ListTarget[]> {
  const keptDir = process.env.BENCH_DIR;
  const sqliteDir = keptDir ?? makeDir('switchboard-bench-pg-list-');
  const sqliteReused = keptDir !== undefined && fs.existsSync(path.join(keptDir, 'switchboard.db'));
  if (keptDir) fs.mkdirSync(keptDir, { recursive: true });
  const keptDatabase = process.env.BENCH_PG_DATABASE;
  const pgDatabase = keptDatabase ?? `sb_bench_pg_list_${process.pid}`;
  let pgReused = false;
  if (keptDatabase && (await databaseExists(keptDatabase))) {
    const s = await Store.open({ databaseUrl: urlOf(keptDatabase) });
    pgReused = (await databaseOf(s).selectFrom('events').select('seq').limit(1).execute()).length > 0;
    await s.close();
  }
  if (!pgReused && !(await databaseExists(pgDatabase))) await createDatabase(pgDatabase, keptDatabase === undefined);
  const started = performance.now();
  const [sqliteMs, pgMs] = await Promise.all([sqliteReused ? undefined : fill('sqlite', sqliteDir), pgReused ? undefined : fill('postgres', urlOf(pgDatabase))]);
  const took = (x: number | undefined) => (x === undefined ? 'reused' : `filled in ${(x / 1000).toFixed(0)} s`);
  console.log(
    `event.list data, ${EVENTS.toLocaleString('en')} events each (filled side by side, ${((performance.now() - started) / 1000).toFixed(0)} s in all): sqlite ${took(sqliteMs)} (${sqliteDir}); postgres ${took(pgMs)} (database ${pgDatabase})`,
  );
  return [
    { engine: 'postgres', store: await Store.open({ databaseUrl: urlOf(pgDatabase) }), env: serverEnv('postgres', { databaseUrl: urlOf(pgDatabase) }, undefined) },
    { engine: 'sqlite', store: await Store.open({ dataDir: sqliteDir }), env: serverEnv('sqlite', { dataDir: sqliteDir }, undefined) },
  ];
}

/** Page 1 of each filter, and page 100 where there is one: walked once over HTTP (a cursor) and in the store (a position). */
async function listCases(node: RpcClient, store: Store): Promise<ListCase[]> {
  const cases: ListCase[] = [];
  for (const [name, filter] of LIST_FILTERS) {
    cases.push({ key: `${name}, page 1`, filter });
    let cursor: string | undefined;
    let position: unknown;
    for (let p = 1; p < DEEP_PAGE; p++) {
      const page = (await node.call('event.list', { filter, limit: PAGE, ...(cursor ? { cursor } : {}) })) as { next_cursor: string | null };
      const storePage = await store.events.page(filter, { limit: PAGE, after: position as never });
      cursor = page.next_cursor ?? undefined;
      position = storePage.next;
      if (!cursor || !position) break;
    }
    if (cursor && position) cases.push({ key: `${name}, page ${DEEP_PAGE}`, filter, cursor, position });
  }
  return cases;
}

async function storeP99(store: Store, c: ListCase): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < LIST_REQUESTS + LIST_WARMUP; i++) {
    const t = performance.now();
    await store.events.page(c.filter, { limit: PAGE, after: c.position as never });
    if (i >= LIST_WARMUP) times.push(performance.now() - t);
  }
  return percentile(times, 99);
}

/**
 * p99s of event.list over HTTP at 1 connection, timed by the list client (bench/list-client.ts), a
 * process of its own: timed here, this process's own collections (it holds the filled stores and the
 * other scenarios' results; young collections of 7-14 ms) landed inside the timed calls. `http` is
 * timed on the wire, as wrk times a request; `node` through Node's http client, for comparison.
 */
function httpP99(client: ChildProcess, port: number, c: ListCase): Promise<{ http: number; node: number }> {
  const job: ListJob = { port, token: TOKEN, params: { filter: c.filter, limit: PAGE, ...(c.cursor ? { cursor: c.cursor } : {}) }, warmup: LIST_WARMUP, requests: LIST_REQUESTS };
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the list client exited (${code}) during ${c.key}`));
    client.once('exit', onExit);
    client.once('message', (answer: ListTimes) => {
      client.off('exit', onExit);
      if ('error' in answer) reject(new Error(answer.error));
      else resolve({ http: percentile(answer.wire, 99), node: percentile(answer.node, 99) });
    });
    client.send(job);
  });
}

function forkListClient(): ChildProcess {
  return fork(path.join(root, 'bench/list-client.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

type ListLayer = 'store' | 'http' | 'node';
type ListFigures = Map<string, Record<Engine, Record<ListLayer, number[]>>>;

async function listRound(target: ListTarget, round: number, figures: ListFigures): Promise<void> {
  const server = await startProcess('apps/server/src/main.ts', target.env, root);
  const node = new RpcClient(server.port, TOKEN, 1);
  const client = forkListClient();
  try {
    target.cases ??= await listCases(node, target.store);
    for (const c of target.cases) {
      // The store layer is read while the server idles; which goes first flips every round.
      let store: number;
      let viaHttp: { http: number; node: number };
      if (round % 2) {
        store = await storeP99(target.store, c);
        viaHttp = await httpP99(client, server.port, c);
      } else {
        viaHttp = await httpP99(client, server.port, c);
        store = await storeP99(target.store, c);
      }
      const f = figures.get(c.key) ?? { postgres: { store: [], http: [], node: [] }, sqlite: { store: [], http: [], node: [] } };
      figures.set(c.key, f);
      f[target.engine].store.push(store);
      f[target.engine].http.push(viaHttp.http);
      f[target.engine].node.push(viaHttp.node);
      console.log(
        `  round ${round} ${target.engine.padEnd(8)} event.list ${c.key}: store p99 ${ms(store)}; http 1c p99 ${ms(viaHttp.http)} (Node's http client ${ms(viaHttp.node)}) (load ${loadAverage()})`,
      );
    }
  } finally {
    node.close();
    client.disconnect();
    await stop(server.child);
  }
}

// ---------------------------------------------------------------------------------------------

interface Row {
  target: string;
  postgres: number | undefined;
  sqlite: number | undefined;
  unit: string;
  met: boolean | undefined;
}

function printSummary(rows: Row[]): void {
  const figure = (x: number | undefined, unit: string) => (x === undefined || !Number.isFinite(x) ? 'n/a' : unit === '/s' ? `${count(x)}/s` : `${x.toFixed(1)} ms`);
  const table = rows.map((r) => [
    r.target,
    figure(r.postgres, r.unit),
    figure(r.sqlite, r.unit),
    r.postgres !== undefined && r.sqlite !== undefined && Number.isFinite(r.postgres) && Number.isFinite(r.sqlite) ? `${(r.postgres / r.sqlite).toFixed(2)}x` : '-',
    r.met === undefined ? 'n/a' : r.met ? 'met' : 'MISSED',
  ]);
  const header = ['target (medians of the rounds)', 'postgres', 'sqlite', 'pg/sqlite', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of table) console.log(line(r));
}

async function main(): Promise<void> {
  const version = await asAdmin(async (c) => (await c.query('show server_version')).rows[0].server_version as string);
  const shownUrl = new URL(adminUrl);
  if (shownUrl.password) shownUrl.password = '***';
  console.log(
    `bench:pg: PostgreSQL ${version} at ${shownUrl}, ${ROUNDS} rounds, ${SECONDS} s per measurement, ${SCENARIOS.join(',')}, node ${process.version}, ${os.cpus().length} cpus, load ${loadAverage()}`,
  );
  const listTargetsReady = SCENARIOS.includes('list') ? await listTargets() : [];
  const nodes: Record<Engine, NodesRound[]> = { postgres: [], sqlite: [] };
  const datapath: Publishes[] = [];
  const tree = SCENARIOS.includes('nodes') && DATAPATH_REF ? datapathTree(DATAPATH_REF) : undefined;
  const list: ListFigures = new Map();
  if (SCENARIOS.includes('nodes')) console.log(`  load generator warmed up (untimed): autocannon ${HTTP_CONNECTIONS}c for 3 s against a server in this process, ${count(await warmLoadGenerator())} requests/s`);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? ENGINES : [...ENGINES].reverse();
    if (tree && round % 2 === 0) datapath.push(await datapathRound(tree, round));
    if (SCENARIOS.includes('nodes')) for (const engine of order) nodes[engine].push(await nodesRound(engine, round));
    if (tree && round % 2 === 1) datapath.push(await datapathRound(tree, round));
    for (const engine of order) {
      const target = listTargetsReady.find((t) => t.engine === engine);
      if (target) await listRound(target, round, list);
    }
  }
  for (const t of listTargetsReady) await t.store.close();

  const rows: Row[] = [];
  const med = (engine: Engine, pick: (r: NodesRound) => number | undefined) => {
    const xs = nodes[engine].map(pick).filter((x): x is number => x !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  const both = (pick: (r: NodesRound) => number | undefined) => ({ postgres: med('postgres', pick), sqlite: med('sqlite', pick) });
  if (SCENARIOS.includes('nodes')) {
    const drain = both((r) => r.drain.perSecond);
    rows.push({ target: 'deliveries drained >= 5,000/s (2 nodes; sqlite 1)', ...drain, unit: '/s', met: drain.postgres === undefined ? undefined : drain.postgres >= 5000 });
    if (WARMUP_DELIVERIES > 0) rows.push({ target: `  untimed: first ${count(WARMUP_DELIVERIES)} drained after start`, ...both((r) => r.coldDrain?.perSecond), unit: '/s', met: undefined });
    const p50 = both((r) => r.latency.p50);
    rows.push({ target: 'publish call -> handler p50 <= 5 ms, 100/s via A', ...p50, unit: 'ms', met: p50.postgres === undefined ? undefined : p50.postgres <= 5 });
    const p99 = both((r) => r.latency.p99);
    rows.push({ target: 'publish call -> handler p99 <= 25 ms', ...p99, unit: 'ms', met: p99.postgres === undefined ? undefined : p99.postgres <= 25 });
    if (WARMUP_SECONDS > 0) {
      rows.push({ target: `  untimed: first ${WARMUP_SECONDS} s after the drain, p50`, ...both((r) => r.coldLatency?.p50), unit: 'ms', met: undefined });
      rows.push({ target: `  untimed: first ${WARMUP_SECONDS} s after the drain, p99`, ...both((r) => r.coldLatency?.p99), unit: 'ms', met: undefined });
    }
    const publishes = both((r) => r.publishes.rps);
    rows.push({
      target: `http event.publish ${HTTP_CONNECTIONS}c split over the nodes >= sqlite`,
      ...publishes,
      unit: '/s',
      met: publishes.postgres === undefined || publishes.sqlite === undefined ? undefined : publishes.postgres >= publishes.sqlite,
    });
    if (datapath.length) {
      const baseline = median(datapath.map((p) => p.rps));
      rows.push({
        target: `http event.publish ${HTTP_CONNECTIONS}c >= sqlite at ${DATAPATH_REF} (data-path end)`,
        postgres: publishes.postgres,
        sqlite: baseline,
        unit: '/s',
        met: publishes.postgres === undefined ? undefined : publishes.postgres >= baseline,
      });
    }
    const changed = both((r) => r.change.changed?.p99);
    rows.push({ target: 'change on B: runtime.changed p99 <= 250 ms', ...changed, unit: 'ms', met: changed.postgres === undefined ? undefined : changed.postgres <= 250 });
    const listed = both((r) => r.change.listed.p99);
    rows.push({ target: 'change on B: event.list (10 ms poll) p99 <= 250 ms', ...listed, unit: 'ms', met: listed.postgres === undefined ? undefined : listed.postgres <= 250 });
  }
  for (const [key, f] of list) {
    const labels: Record<ListLayer, string> = { store: 'store p99 <= 10 ms', http: 'http 1c p99 <= 10 ms', node: "Node's http client p99" };
    for (const layer of ['store', 'http', 'node'] as const) {
      const pgP99 = f.postgres[layer].length ? median(f.postgres[layer]) : undefined;
      const sqliteP99 = f.sqlite[layer].length ? median(f.sqlite[layer]) : undefined;
      rows.push({
        target: `event.list ${key}, ${labels[layer]}`,
        postgres: pgP99,
        sqlite: sqliteP99,
        unit: 'ms',
        // Node's client is shown for comparison with earlier runs; the target is the server's answer time.
        met: pgP99 === undefined || layer === 'node' ? undefined : pgP99 <= 10,
      });
    }
  }
  printSummary(rows);
  for (const [engine, why] of changedUnavailable) console.log(`runtime.changed on ${engine}: ${why}.`);
  if (SCENARIOS.includes('nodes')) console.log(
    'publish call -> handler: from the publish call\'s start here to the delivery\'s outcome timestamp on the node that ran it (an upper bound of handler start). ' +
      'Drain: deliveries / (last completion - first completion). Change: from the publish call\'s start to the notification, or to the first event.list answer showing the event; ' +
      'on SQLite, A and B are its one node.',
  );
  if (list.size > 0) console.log(
    "event.list http 1c: from writing the request on a keep-alive socket to reading the answer's last byte, as wrk and autocannon time it (each answer checked after its timed span). " +
      "Node's http client: the same calls through node:http to the parsed answer (the figure bench:pg reported before); it adds the client's own parsing and scheduling.",
  );
}

try {
  await main();
} finally {
  await cleanUp();
}
