/**
 * npm run bench:list: event.list and runtime.incidents over HTTP on a large store, beside the same
 * pages read from the store layer (the figure `bench:store` reports), alternating round by round,
 * with the load average per round, then medians and ratios. Load generator at 16 connections: wrk
 * when installed, else autocannon (bench/load-generator.ts; loopback only); the first line says
 * which ran. At 1 connection the same load generator times the verdict's figure when it is wrk
 * (`wrk -c1`, BENCH_SECONDS after 1 s untimed); the list client (bench/list-client.ts, a process of
 * its own) also times each call on the wire and through Node's http client, for comparison, and
 * gives the verdict's figure when autocannon ran (a JS load generator shares the cores: its p50
 * read 0.2-1.2 ms above wrk's on the same servers, bench/README.md).
 *
 *   event.list   50-row pages, one filter at a time, page 1 and page 100, at 1 and 16 connections
 *                (targets: p50 at 1 connection <= 1.5x the store layer; p99 at 16 <= 50 ms). The store
 *                layer is timed as rows (store.events.page) and as the records' JSON text the
 *                server reads (store.events.pageJson), each round right after the server's
 *                one-connection run of the same page; the ratio (the median of the rounds' ratios)
 *                is printed against each.
 *   incidents    runtime.incidents over 7 and 30 days: the store's reads for one page (target
 *                p99 <= 5 ms) and over HTTP at 1 connection (target p99 <= 10 ms: 2x the store's 5)
 *
 * Each round times the store layer's incident reads (after untimed ones), then starts each server
 * as a fresh process on the store in turn (this checkout's, and BENCH_BEFORE_ROOT's when given: a
 * checkout of an earlier commit with its node_modules), the order flipping every round.
 *
 * Environment: BENCH_EVENTS (1,000,000), BENCH_DIR (keep the filled store and reuse it),
 * BENCH_BEFORE_ROOT, BENCH_BEFORE_DIR (the before server's store when this tree migrated BENCH_DIR
 * further than that tree knows: a copy migrated no further), BENCH_ROUNDS (3), BENCH_SECONDS (4 per
 * measurement with wrk or autocannon), BENCH_SEQUENTIAL_REQUESTS (1,000 per list client pass),
 * BENCH_LOAD_GENERATOR and BENCH_WRK_THREADS (bench/load-generator.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store, type EventFilter } from '@switchboard/store';
import { incidentPageReads } from './incident-page-reads';
import { forkListClient, runListJob } from './list-client-process';
import { LIST_FILTERS } from './list-filters';
import { loadGeneratorLabel, loadGeneratorName, runLoad } from './load-generator';
import { loadAverage, median, startProcess, stop } from './rounds';

const root = fileURLToPath(new URL('../', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const STORE_ITERATIONS = 300;
/**
 * Untimed store-layer reads before the first round, per case: a fresh process reads slowly until
 * V8 has compiled its paths, and round 1 timed that (bench/README.md, "Why the warm-ups"). The
 * servers get their warm-up from the list client (SEQUENTIAL_WARMUP).
 */
const STORE_WARMUP = 600;
/**
 * Untimed incident reads per window at the start of each round. A round begins right after the
 * last round's servers wrote the file, and the first read after another process's write reloads
 * this connection's page cache (bench/README.md, "Why the warm-ups"): timed, that one read was the
 * round's p99.
 */
const STORE_ROUND_WARMUP = 100;
const TOKEN = 'sbk_bench_list_token_0000000001';
const PAGE = 50;
const DEEP_PAGE = 100;
/** Calls per 1-connection measurement, after untimed ones (each pass, wire and Node's client). */
const SEQUENTIAL_WARMUP = 100;
const SEQUENTIAL_REQUESTS = Number(process.env.BENCH_SEQUENTIAL_REQUESTS ?? 1000);
/**
 * Untimed seconds at 16 connections before each timed 16-connection run: a server reads a lone
 * caller's pages on its main thread, so its reader threads meet their first load here, and they
 * read slowly for their first seconds (bench/README.md, "Why the warm-ups").
 */
const CONCURRENT_WARMUP_SECONDS = Number(process.env.BENCH_16C_WARMUP_SECONDS ?? 2);
/** Untimed seconds of `wrk -c1` before its timed run (the list client's calls came just before). */
const ONE_CONNECTION_WARMUP_SECONDS = 1;

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
  /** Page 100's cursor over HTTP, per contender (empty for page 1). */
  cursors: Map<string, string>;
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

async function httpLatency(port: number, connections: number, body: string, warmupSeconds: number): Promise<{ p50: number; p99: number; rps: number; errors: number }> {
  if (warmupSeconds > 0) await runLoad({ port, token: TOKEN, connections, seconds: warmupSeconds, body });
  const r = await runLoad({ port, token: TOKEN, connections, seconds: SECONDS, body });
  return { p50: r.p50, p99: r.p99, rps: r.rps, errors: r.errors + r.non2xx };
}

/**
 * One connection's p50 and p99 as the verdict takes them: wrk's when wrk is the load generator (a C
 * client that leaves the server its core), else the list client's on the wire.
 */
async function oneConnection(client: ChildProcess, port: number, method: string, params: unknown): Promise<{ p50: number; p99: number; clientP50: number; nodeP50: number; errors: number }> {
  const listed = await sequentialLatency(client, port, method, params);
  if (loadGeneratorName !== 'wrk') return { p50: listed.p50, p99: listed.p99, clientP50: listed.p50, nodeP50: listed.nodeP50, errors: 0 };
  const r = await httpLatency(port, 1, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), ONE_CONNECTION_WARMUP_SECONDS);
  return { p50: r.p50, p99: r.p99, clientP50: listed.p50, nodeP50: listed.nodeP50, errors: r.errors };
}

const millis = (x: number) => String(Number(x.toFixed(2)));

/**
 * One connection, one request at a time, from the list client (bench/list-client.ts, a process of
 * its own): `wire` from writing the request's bytes to reading the answer's last byte, as wrk
 * times a request (the verdict's figure); `node` through Node's http client, to the answer parsed,
 * for comparison (it adds its own parsing and scheduling to each call).
 */
async function sequentialLatency(client: ChildProcess, port: number, method: string, params: unknown): Promise<{ p50: number; p99: number; nodeP50: number }> {
  const times = await runListJob(client, { port, token: TOKEN, method, params, warmup: SEQUENTIAL_WARMUP, requests: SEQUENTIAL_REQUESTS });
  const wire = [...times.wire].sort((a, b) => a - b);
  return { p50: median(wire), p99: wire[Math.floor(wire.length * 0.99)]!, nodeP50: median(times.node) };
}

/**
 * p50 of the case's page from the store layer, in this process while the server is idle: as rows
 * (store.events.page, what the targets were set against) and as the records' JSON text the server
 * reads (store.events.pageJson); the two reads alternate, so the host's drift falls on both.
 */
async function storeLatency(store: Store, c: Case, after: unknown): Promise<{ rows: number; json: number }> {
  const rows: number[] = [];
  const json: number[] = [];
  for (let i = 0; i < STORE_ITERATIONS; i++) {
    let t = performance.now();
    await store.events.page(c.filter, { limit: PAGE, after: after as never });
    rows.push(performance.now() - t);
    t = performance.now();
    await store.events.pageJson(c.filter, { limit: PAGE, after: after as never });
    json.push(performance.now() - t);
  }
  return { rows: median(rows), json: median(json) };
}

const keep = process.env.BENCH_DIR;
const reuse = keep !== undefined && fs.existsSync(path.join(keep, 'switchboard.db'));
const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-list-'));
console.log(`bench:list: load generator ${loadGeneratorLabel}, ${ROUNDS} rounds, ${SECONDS} s per HTTP measurement, ${STORE_ITERATIONS} store-layer reads per case (after ${STORE_WARMUP} untimed; ${STORE_ROUND_WARMUP} more incident reads per window each round), node ${process.version}, ${os.cpus().length} cpus`);
if (!reuse) {
  const started = performance.now();
  fs.mkdirSync(dir, { recursive: true });
  await fillStore(dir);
  console.log(`filled ${EVENTS.toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(0)} s (${dir})`);
} else console.log(`store ${dir} (reused)`);

const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT;
/**
 * The before server's store: the same folder unless this tree's migrations went further than the
 * earlier tree knows (it refuses such a database); then a copy of the same data migrated no further.
 */
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR ?? dir;
const serverEnv = (dataDir: string) => ({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TOKEN: TOKEN, SWITCHBOARD_DEMO: 'off', SWITCHBOARD_LOG_LEVEL: 'info', SWITCHBOARD_RATE_LIMIT_PER_S: '100000000' });
/** The servers compared: this checkout, and BENCH_BEFORE_ROOT's when given. They take turns on the store. */
const contenders: { label: string; root: string; dataDir: string }[] = [{ label: 'project', root, dataDir: dir }, ...(BEFORE_ROOT ? [{ label: 'before', root: BEFORE_ROOT, dataDir: BEFORE_DIR }] : [])];
const startServer = (contender: { root: string; dataDir: string }) => startProcess('apps/server/src/main.ts', serverEnv(contender.dataDir), contender.root);

// The server and this process's store read the same file; the store layer is measured while the server is idle.
const store = await Store.open({ dataDir: dir });
const cases: (Case & { position?: unknown })[] = [];
// Page 100's cursor is each server's own: an earlier tree may encode cursors differently and
// refuse this one's (it answered those requests with an error, fast, which timed as a fast page).
for (const [i, contender] of contenders.entries()) {
  const server = await startServer(contender);
  for (const [name, filter] of LIST_FILTERS) {
    if (i === 0) cases.push({ name, filter, page: 1, cursors: new Map() });
    let cursor: string | undefined;
    let position: unknown;
    for (let p = 1; p < DEEP_PAGE; p++) {
      const page = await rpc(server.port, 'event.list', { filter, limit: PAGE, ...(cursor ? { cursor } : {}) });
      cursor = page.next_cursor ?? undefined;
      if (i === 0) position = (await store.events.page(filter, { limit: PAGE, after: position as never })).next;
      if (!cursor || (i === 0 && !position)) break;
    }
    if (i === 0 && cursor && position) cases.push({ name, filter, page: 100, cursors: new Map(), position });
    const deep = cases.find((c) => c.name === name && c.page === 100);
    if (deep && cursor) deep.cursors.set(contender.label, cursor);
  }
  await stop(server.child);
}
// A page a server has no cursor for is timed for the others only.
const casesFor = (label: string) => cases.filter((c) => c.page === 1 || c.cursors.has(label));

const listClient = forkListClient();

/**
 * Per round: the server's one-connection run of the page, the store layer's p50 of it (as rows and
 * as JSON) timed right after, then the server's 16-connection run.
 */
type Figures = { storeRows: number[]; storeJson: number[]; p50: number[]; clientP50: number[]; nodeP50: number[]; p99at16: number[]; rpsAt16: number[] };
const results = new Map<string, Map<string, Figures>>(contenders.map((c) => [c.label, new Map()]));
const incidents = new Map<string, Map<number, { p50: number[]; p99: number[] }>>(contenders.map((c) => [c.label, new Map()]));
const keyOf = (c: Case) => `${c.name}, page ${c.page}`;
const storeIncidents = new Map<number, { p50: number[]; p99: number[] }>();
const incidentWindow = (hours: number) => {
  const windowEnd = new Date().toISOString();
  return { windowStart: new Date(Date.now() - hours * 3600_000).toISOString(), windowEnd, mcpOnly: false };
};
for (const c of cases) {
  for (let i = 0; i < STORE_WARMUP; i++) {
    await store.events.page(c.filter, { limit: PAGE, after: c.position as never });
    await store.events.pageJson(c.filter, { limit: PAGE, after: c.position as never });
  }
}
const readIncidentsUntimed = async (times: number) => {
  for (const hours of [168, 720]) for (let i = 0; i < times; i++) await incidentPageReads(store, incidentWindow(hours), PAGE);
};
await readIncidentsUntimed(STORE_WARMUP);
for (let round = 1; round <= ROUNDS; round++) {
  await readIncidentsUntimed(STORE_ROUND_WARMUP);
  for (const hours of [168, 720]) {
    const window = incidentWindow(hours);
    const times: number[] = [];
    for (let i = 0; i < STORE_ITERATIONS; i++) {
      const t = performance.now();
      await incidentPageReads(store, window, PAGE);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const r = storeIncidents.get(hours) ?? { p50: [], p99: [] };
    storeIncidents.set(hours, r);
    r.p50.push(median(times));
    r.p99.push(times[Math.floor(times.length * 0.99)]!);
    console.log(`  round ${round} store   runtime.incidents ${hours / 24} days: p50 ${r.p50.at(-1)!.toFixed(2)} ms p99 ${r.p99.at(-1)!.toFixed(2)} ms (load ${loadAverage()})`);
  }
  // The order of the servers flips every round.
  for (const contender of round % 2 === 1 ? contenders : [...contenders].reverse()) {
    const server = await startServer(contender);
    const label = contender.label.padEnd(7);
    for (const c of casesFor(contender.label)) {
      const r = results.get(contender.label)!.get(keyOf(c)) ?? { storeRows: [], storeJson: [], p50: [], clientP50: [], nodeP50: [], p99at16: [], rpsAt16: [] };
      results.get(contender.label)!.set(keyOf(c), r);
      const cursor = c.cursors.get(contender.label);
      const params = { filter: c.filter, limit: PAGE, ...(cursor ? { cursor } : {}) };
      // Only answers are timed: a request the server refuses fails the run here.
      await rpc(server.port, 'event.list', params);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'event.list', params });
      const one = await oneConnection(listClient, server.port, 'event.list', params);
      // The store layer is timed right after the server's run of the same page, not minutes
      // before it: the same read's speed drifts over minutes on a shared host (bench/README.md,
      // "The store layer beside HTTP"). After, not before: the first page starts reader threads.
      const adjacent = await storeLatency(store, c, c.position);
      r.storeRows.push(adjacent.rows);
      r.storeJson.push(adjacent.json);
      const many = await httpLatency(server.port, 16, body, CONCURRENT_WARMUP_SECONDS);
      r.p50.push(one.p50);
      r.clientP50.push(one.clientP50);
      r.nodeP50.push(one.nodeP50);
      r.p99at16.push(many.p99);
      r.rpsAt16.push(many.rps);
      console.log(
        `  round ${round} ${label} event.list ${keyOf(c)}: store p50 ${adjacent.rows.toFixed(2)} ms (records' JSON ${adjacent.json.toFixed(2)}); http 1c p50 ${one.p50.toFixed(2)} ms p99 ${one.p99.toFixed(2)} ms (list client p50 ${one.clientP50.toFixed(2)}, Node's client ${one.nodeP50.toFixed(2)})${one.errors ? ` ERRORS ${one.errors}` : ''}; 16c p50 ${millis(many.p50)} ms p99 ${millis(many.p99)} ms ${Math.round(many.rps)} req/s${many.errors ? ` ERRORS ${many.errors}` : ''} (load ${loadAverage()})`,
      );
    }
    for (const hours of [168, 720]) {
      await rpc(server.port, 'runtime.incidents', { since_hours: hours, limit: PAGE });
      const m = await oneConnection(listClient, server.port, 'runtime.incidents', { since_hours: hours, limit: PAGE });
      const r = incidents.get(contender.label)!.get(hours) ?? { p50: [], p99: [] };
      incidents.get(contender.label)!.set(hours, r);
      r.p50.push(m.p50);
      r.p99.push(m.p99);
      console.log(`  round ${round} ${label} runtime.incidents ${hours / 24} days 1c: p50 ${m.p50.toFixed(2)} ms p99 ${m.p99.toFixed(2)} ms (list client p50 ${m.clientP50.toFixed(2)})${m.errors ? ` ERRORS ${m.errors}` : ''} (load ${loadAverage()})`);
    }
    await stop(server.child);
  }
}

console.log('medians (ms):');
/** The median over rounds of each round's ratio: a round's two figures were taken together. */
const ratioOf = (numerators: number[], denominators: number[]) => median(numerators.map((n, i) => n / denominators[i]!));
for (const c of cases) {
  for (const contender of contenders) {
    const r = results.get(contender.label)!.get(keyOf(c));
    if (!r) {
      console.log(`  ${contender.label.padEnd(7)} event.list ${keyOf(c)}: not timed (no page 100 from this server)`);
      continue;
    }
    const p99 = median(r.p99at16);
    console.log(
      `  ${contender.label.padEnd(7)} event.list ${keyOf(c)}: store p50 ${median(r.storeRows).toFixed(2)} (as records' JSON ${median(r.storeJson).toFixed(2)}); http 1c p50 ${median(r.p50).toFixed(2)} (${ratioOf(r.p50, r.storeRows).toFixed(2)}x the store, target <= 1.5x; ${ratioOf(r.p50, r.storeJson).toFixed(2)}x the records' JSON; list client ${median(r.clientP50).toFixed(2)}, ${ratioOf(r.clientP50, r.storeRows).toFixed(2)}x; Node's client ${median(r.nodeP50).toFixed(2)}); 16c p99 ${millis(p99)} (target <= 50), ${Math.round(median(r.rpsAt16))} req/s`,
    );
  }
  const after = results.get('project')!.get(keyOf(c));
  const before = results.get('before')?.get(keyOf(c));
  if (after && before) {
    console.log(`  project/before event.list ${keyOf(c)}: 1c p50 ${(median(after.p50) / median(before.p50)).toFixed(2)}x, 16c req/s ${(median(after.rpsAt16) / median(before.rpsAt16)).toFixed(2)}x`);
  }
}
for (const [hours, r] of storeIncidents) console.log(`  store   runtime.incidents ${hours / 24} days: p50 ${median(r.p50).toFixed(2)}, p99 ${median(r.p99).toFixed(2)} (target p99 <= 5)`);
for (const contender of contenders) {
  for (const [hours, r] of incidents.get(contender.label)!) console.log(`  ${contender.label.padEnd(7)} runtime.incidents ${hours / 24} days 1c: p50 ${median(r.p50).toFixed(2)}, p99 ${median(r.p99).toFixed(2)} (target p99 <= 10 ms: 2x the store's 5)`);
}
console.log(
  loadGeneratorName === 'wrk'
    ? '1- and 16-connection figures are wrk\'s (to the microsecond); the list client\'s (bench/list-client.ts, on the wire) are beside them for comparison.'
    : '1-connection figures are the list client\'s (bench/list-client.ts), on the wire; 16-connection figures are autocannon\'s (whole milliseconds).',
);

listClient.disconnect();
await store.close();
if (!keep) fs.rmSync(dir, { recursive: true, force: true });
