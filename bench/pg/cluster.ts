/** The servers of one round: a fresh database, its backlog queued, N server processes on it. */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Store, type Clock } from '@switchboard/store';
import { databaseOf, databaseOfTransaction } from '@switchboard/store/testing';
import { Runtime } from '@switchboard/runtime';
import { startProcess, stop } from '../rounds';
import { RpcClient } from '../rpc-client';
import { createDatabase, dropDatabase, makeDir, removeDir } from './resources';
import { DELIVERIES, NODES, TOKEN, WARMUP_DELIVERIES, root, sleep, type Engine } from './settings';

// The bench bundle and JSON-RPC over HTTP.

export const workDir = makeDir('switchboard-bench-pg-');
export const BUNDLE_PATH = path.join(workDir, 'bundle.json');
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

export function serverEnv(engine: Engine, target: { databaseUrl?: string; dataDir?: string }, bundle: string | undefined): Record<string, string> {
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
// Servers on a fresh database: drain, latency, change visibility, HTTP publishes.

/**
 * The store and runtime packages a cluster's own reads and writes go through: this checkout's, or
 * those of the tree under comparison (BENCH_BEFORE_ROOT), so that its database is migrated and
 * written by its own code and its servers find the schema they expect.
 */
export interface StorePackages {
  Store: typeof Store;
  Runtime: typeof Runtime;
  databaseOf: typeof databaseOf;
  databaseOfTransaction: typeof databaseOfTransaction;
}

export async function packagesOf(tree: string): Promise<StorePackages> {
  if (path.resolve(tree) === path.resolve(root)) return { Store, Runtime, databaseOf, databaseOfTransaction };
  const load = (file: string) => import(pathToFileURL(path.join(tree, file)).href);
  const [store, runtime, testing] = await Promise.all([load('packages/store/src/index.ts'), load('packages/runtime/src/index.ts'), load('packages/store/src/testing.ts')]);
  return { Store: store.Store, Runtime: runtime.Runtime, databaseOf: testing.databaseOf, databaseOfTransaction: testing.databaseOfTransaction };
}

export interface Cluster {
  engine: Engine;
  /** The checkout whose servers run: this one, or BENCH_BEFORE_ROOT. */
  tree: string;
  packages: StorePackages;
  store: Store;
  nodes: RpcClient[];
  children: ChildProcess[];
  dispose(): Promise<void>;
}

export let databaseCount = 0;

export async function freshCluster(engine: Engine, tree = root): Promise<Cluster> {
  const packages = await packagesOf(tree);
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
  const store = await packages.Store.open(target);
  // What each server would do at boot; done once here so that servers starting together do not race to create it.
  await store.tokens.create('env:SWITCHBOARD_TOKEN', { secret: TOKEN });
  await queueBacklog(store, packages);
  const started = await Promise.all(Array.from({ length: NODES[engine] }, () => startProcess('apps/server/src/main.ts', serverEnv(engine, target, BUNDLE_PATH), tree)));
  const nodes = started.map((s) => new RpcClient(s.port, TOKEN));
  const deadline = Date.now() + 30_000;
  // A tree from before the server-process rename lists `servers`; this one lists `servers`.
  const liveServers = async () => {
    const check = (await nodes[0]!.call('health.check')) as { servers?: unknown[]; nodes?: unknown[] };
    return (check.servers ?? check.servers ?? []).length;
  };
  while ((await liveServers()) < nodes.length) {
    if (Date.now() > deadline) throw new Error(`health.check did not list ${nodes.length} live servers within 30 s`);
    await sleep(100);
  }
  return {
    engine,
    tree,
    packages,
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

export const BACKLOG_AHEAD_MS = 24 * 3600_000;

/**
 * The drain's backlog (its untimed part too), published through the runtime (dispatcher not
 * started) with a clock a day ahead: every delivery exists, committed, but none is due until
 * drainBacklog makes them due, once all servers are up.
 */
export async function queueBacklog(store: Store, packages: StorePackages): Promise<void> {
  const dayAhead: Clock = { now: () => new Date(Date.now() + BACKLOG_AHEAD_MS) };
  const runtime = await packages.Runtime.boot({ store, bundlePath: BUNDLE_PATH, autoStart: false, clock: dayAhead });
  const queued = WARMUP_DELIVERIES + DELIVERIES;
  for (let i = 0; i < queued; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, queued - i) }, (_, j) => runtime.publish({ event_name: 'work', payload: { n: i + j } })));
  }
  await runtime.stop();
}
