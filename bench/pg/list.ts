/** The list scenario: event.list pages on a filled database, from the store layer and over HTTP at 1 connection. */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Store, type EventFilter } from '@switchboard/store';
import { databaseOf } from '@switchboard/store/testing';
import type { ListJob } from '../list-client';
import { forkListClient, runListJob } from '../list-client-process';
import { LIST_FILTERS } from '../list-filters';
import { loadAverage, startProcess, stop } from '../rounds';
import { RpcClient } from '../rpc-client';
import { serverEnv } from './cluster';
import { createDatabase, databaseExists, fills, makeDir, urlOf } from './resources';
import { DEEP_PAGE, EVENTS, LIST_REQUESTS, LIST_WARMUP, PAGE, TOKEN, ms, percentile, root, type Engine } from './settings';

// event.list on a filled database: the store layer and HTTP at 1 connection.

export interface ListCase {
  key: string;
  filter: EventFilter;
  /** Page 100's cursor over HTTP and position in the store; both unset for page 1. */
  cursor?: string;
  position?: unknown;
}

export interface ListTarget {
  engine: Engine;
  store: Store;
  env: Record<string, string>;
  cases?: ListCase[];
}

/** Fills one database (event-list.bench.ts's data, the same on both engines) in a child process; its progress lines prefixed. */
export function fill(engine: Engine, target: string): Promise<number> {
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

export async function listTargets(): Promise<ListTarget[]> {
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
export async function listCases(node: RpcClient, store: Store): Promise<ListCase[]> {
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

export async function storeP99(store: Store, c: ListCase): Promise<number> {
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
export async function httpP99(client: ChildProcess, port: number, c: ListCase): Promise<{ http: number; node: number }> {
  const job: ListJob = { port, token: TOKEN, params: { filter: c.filter, limit: PAGE, ...(c.cursor ? { cursor: c.cursor } : {}) }, warmup: LIST_WARMUP, requests: LIST_REQUESTS };
  const times = await runListJob(client, job);
  return { http: percentile(times.wire, 99), node: percentile(times.node, 99) };
}

export type ListLayer = 'store' | 'http' | 'node';
export type ListFigures = Map<string, Record<Engine, Record<ListLayer, number[]>>>;

export async function listRound(target: ListTarget, round: number, figures: ListFigures): Promise<void> {
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
