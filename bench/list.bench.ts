/**
 * npm run bench:list: event.list and runtime.incidents over HTTP on a large store, beside the same
 * pages read from the store layer (the figure `bench:store` reports), alternating round by round,
 * with the load average per round, then medians and ratios. Load generator at 16 connections: wrk
 * when installed, else autocannon (bench/load-generator.ts; loopback only); the first line says
 * which ran.
 *
 *   event.list   50-row pages, one filter at a time, page 1 and page 100, at 1 and 16 connections
 *                (targets: p50 at 1 connection <= 1.5x the store layer; p99 at 16 <= 50 ms)
 *   incidents    runtime.incidents over 7 and 30 days at 1 connection (target p99 <= 5 ms)
 *
 * Environment: BENCH_EVENTS (1,000,000), BENCH_DIR (keep the filled store and reuse it),
 * BENCH_ROUNDS (3), BENCH_SECONDS (4 per measurement), BENCH_LOAD_GENERATOR and BENCH_WRK_THREADS
 * (bench/load-generator.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store, type EventFilter } from '@switchboard/store';
import { LIST_FILTERS } from './list-filters';
import { loadGeneratorLabel, loadGeneratorName, runLoad } from './load-generator';
import { loadAverage, median, startProcess, stop } from './rounds';

const root = fileURLToPath(new URL('../', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const STORE_ITERATIONS = 300;
const TOKEN = 'sbk_bench_list_token_0000000001';
const PAGE = 50;
const DEEP_PAGE = 100;

function fillStore(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/event-list.bench.ts'), '--fill', dir], {
      cwd: root,
      env: { ...process.env, BENCH_EVENTS: String(EVENTS) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fill exited with ${code}`))));
  });
}

interface Case {
  name: string;
  filter: EventFilter;
  /** Page 100's cursor for HTTP and position for the store; undefined for page 1. */
  cursor?: string;
  page: 1 | 100;
}

async function rpc(port: number, method: string, params: unknown): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (!body.result) throw new Error(`${method}: ${body.error?.message ?? res.status}`);
  return body.result;
}

async function httpLatency(port: number, connections: number, body: string): Promise<{ p50: number; p99: number; rps: number; errors: number }> {
  const r = await runLoad({ port, token: TOKEN, connections, seconds: SECONDS, body });
  return { p50: r.p50, p99: r.p99, rps: r.rps, errors: r.errors + r.non2xx };
}

const millis = (x: number) => String(Number(x.toFixed(2)));

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(port: number, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/rpc', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One connection, one request at a time, timed here to the microsecond (autocannon rounds to whole ms). */
async function sequentialLatency(port: number, body: string): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  while (performance.now() < until) {
    const t = performance.now();
    await post(port, body);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: median(times), p99: times[Math.floor(times.length * 0.99)]! };
}

/** Store-layer p50 of one page, in this process, with the server idle. */
async function storeLatency(store: Store, c: Case, after: unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STORE_ITERATIONS; i++) {
    const t = performance.now();
    await store.events.page(c.filter, { limit: PAGE, after: after as never });
    times.push(performance.now() - t);
  }
  return median(times);
}

const keep = process.env.BENCH_DIR;
const reuse = keep !== undefined && fs.existsSync(path.join(keep, 'switchboard.db'));
const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-list-'));
console.log(`bench:list: load generator ${loadGeneratorLabel}, ${ROUNDS} rounds, ${SECONDS} s per HTTP measurement, ${STORE_ITERATIONS} store-layer reads per case, node ${process.version}, ${os.cpus().length} cpus`);
if (!reuse) {
  const started = performance.now();
  fs.mkdirSync(dir, { recursive: true });
  await fillStore(dir);
  console.log(`filled ${EVENTS.toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(0)} s (${dir})`);
} else console.log(`store ${dir} (reused)`);

// The server and this process's store read the same file; the store layer is measured while the server idles.
const server = await startProcess(
  'apps/server/src/main.ts',
  { SWITCHBOARD_DATA_DIR: dir, SWITCHBOARD_TOKEN: TOKEN, SWITCHBOARD_DEMO: 'off', SWITCHBOARD_LOG_LEVEL: 'info', SWITCHBOARD_RATE_LIMIT_PER_S: '100000000' },
  root,
);
const store = await Store.open({ dataDir: dir });

const cases: (Case & { position?: unknown })[] = [];
for (const [name, filter] of LIST_FILTERS) {
  cases.push({ name, filter, page: 1 });
  // Walk to page 100 once, over HTTP (a cursor) and in the store (a position).
  let cursor: string | undefined;
  let position: unknown;
  for (let p = 1; p < DEEP_PAGE; p++) {
    const page = await rpc(server.port, 'event.list', { filter, limit: PAGE, ...(cursor ? { cursor } : {}) });
    const storePage = await store.events.page(filter, { limit: PAGE, after: position as never });
    cursor = page.next_cursor ?? undefined;
    position = storePage.next;
    if (!cursor || !position) break;
  }
  if (cursor && position) cases.push({ name, filter, page: 100, cursor, position });
}

const results = new Map<string, { store: number[]; p50: number[]; p99at16: number[]; rpsAt16: number[] }>();
const incidents = new Map<number, { p50: number[]; p99: number[] }>();
for (let round = 1; round <= ROUNDS; round++) {
  const httpFirst = round % 2 === 1;
  for (const c of cases) {
    const key = `${c.name}, page ${c.page}`;
    const r = results.get(key) ?? { store: [], p50: [], p99at16: [], rpsAt16: [] };
    results.set(key, r);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'event.list', params: { filter: c.filter, limit: PAGE, ...(c.cursor ? { cursor: c.cursor } : {}) } });
    const measureStore = async () => r.store.push(await storeLatency(store, c, c.position));
    if (!httpFirst) await measureStore();
    const one = await sequentialLatency(server.port, body);
    const many = await httpLatency(server.port, 16, body);
    if (httpFirst) await measureStore();
    r.p50.push(one.p50);
    r.p99at16.push(many.p99);
    r.rpsAt16.push(many.rps);
    console.log(
      `  round ${round} event.list ${key}: store p50 ${r.store.at(-1)!.toFixed(2)} ms; http 1c p50 ${one.p50.toFixed(2)} ms p99 ${one.p99.toFixed(2)} ms; 16c p50 ${millis(many.p50)} ms p99 ${millis(many.p99)} ms ${Math.round(many.rps)} req/s${many.errors ? ` ERRORS ${many.errors}` : ''} (load ${loadAverage()})`,
    );
  }
  for (const hours of [168, 720]) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'runtime.incidents', params: { since_hours: hours, limit: PAGE } });
    const m = await sequentialLatency(server.port, body);
    const r = incidents.get(hours) ?? { p50: [], p99: [] };
    incidents.set(hours, r);
    r.p50.push(m.p50);
    r.p99.push(m.p99);
    console.log(`  round ${round} runtime.incidents ${hours / 24} days 1c: p50 ${m.p50.toFixed(2)} ms p99 ${m.p99.toFixed(2)} ms (load ${loadAverage()})`);
  }
}

console.log('medians (ms):');
for (const [key, r] of results) {
  const s = median(r.store);
  const p50 = median(r.p50);
  const p99 = median(r.p99at16);
  console.log(
    `  event.list ${key}: store p50 ${s.toFixed(2)}; http 1c p50 ${p50.toFixed(2)} (${(p50 / s).toFixed(2)}x the store, target <= 1.5x); 16c p99 ${millis(p99)} (target <= 50), ${Math.round(median(r.rpsAt16))} req/s`,
  );
}
for (const [hours, r] of incidents) console.log(`  runtime.incidents ${hours / 24} days 1c: p50 ${median(r.p50).toFixed(2)}, p99 ${median(r.p99).toFixed(2)} (target p99 <= 5)`);
console.log(`1-connection figures are timed here per request; 16-connection figures are ${loadGeneratorName}'s${loadGeneratorName === 'autocannon' ? ' (whole milliseconds)' : ' (to the microsecond)'}.`);

await store.close();
await stop(server.child);
if (!keep) fs.rmSync(dir, { recursive: true, force: true });
