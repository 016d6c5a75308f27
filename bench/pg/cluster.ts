/** The nodes of one round: a fresh database, its backlog queued, N server processes on it. */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Store, type Clock } from '@switchboard/store';
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
// Nodes on a fresh database: drain, latency, change visibility, HTTP publishes.

export interface Cluster {
  engine: Engine;
  store: Store;
  nodes: RpcClient[];
  children: ChildProcess[];
  dispose(): Promise<void>;
}

export let databaseCount = 0;

export async function freshCluster(engine: Engine): Promise<Cluster> {
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

export const BACKLOG_AHEAD_MS = 24 * 3600_000;

/**
 * The drain's backlog (its untimed part too), published through the runtime (dispatcher not
 * started) with a clock a day ahead: every delivery exists, committed, but none is due until
 * drainBacklog makes them due, once all nodes are up.
 */
export async function queueBacklog(store: Store): Promise<void> {
  const dayAhead: Clock = { now: () => new Date(Date.now() + BACKLOG_AHEAD_MS) };
  const runtime = await Runtime.boot({ store, bundlePath: BUNDLE_PATH, autoStart: false, clock: dayAhead });
  const queued = WARMUP_DELIVERIES + DELIVERIES;
  for (let i = 0; i < queued; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, queued - i) }, (_, j) => runtime.publish({ event_name: 'work', payload: { n: i + j } })));
  }
  await runtime.stop();
}
