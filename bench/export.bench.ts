/**
 * npm run bench:export: GET /v1/export/events over the whole event store, as JSON Lines and as
 * CSV, against a server started as a fresh process, with the server's resident memory sampled from
 * /proc/<pid>/status every 100 ms. Prints per export the rows, bytes, seconds, rows/s and MB/s, and
 * the RSS before, its maximum and the growth (maximum - before); the target is growth under 50 MB.
 * A last run reads at a slow, fixed pace for a few seconds and then goes away: the server's memory
 * must stay flat while the client lags (backpressure) and the server log says the walk stopped.
 *
 * Environment: BENCH_EVENTS (1,000,000), BENCH_DIR (keep the filled SQLite store and reuse it,
 * shared with bench:store and bench:list), BENCH_DATABASE_URL (also run on PostgreSQL: a role that
 * may create databases; a fresh database is filled and dropped after), BENCH_SLOW_SECONDS (5).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSpecDatabase, startServerProcess, type ServerProcess } from '@switchboard/testkit';

const root = fileURLToPath(new URL('../', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SLOW_SECONDS = Number(process.env.BENCH_SLOW_SECONDS ?? 5);
/** The slow client's pace: far below what the server can send. */
const SLOW_BYTES_PER_S = 2 * 1024 * 1024;
const TOKEN = 'sbk_bench_export_token_00000001';
const RSS_TARGET_MB = 50;
const MB = 1024 * 1024;

/** Fills with bench:store's skewed events, deliveries, dead letters and logs, in a child process. */
function fill(target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/event-list.bench.ts'), '--fill', target], {
      cwd: root,
      env: { ...process.env, BENCH_EVENTS: String(EVENTS) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fill exited with ${code}`))));
  });
}

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb[1]) * 1024;
}

/** Samples the process's RSS every 100 ms until stopped; the maximum seen. */
function sampleRss(pid: number): { stop(): number } {
  let max = rssBytes(pid);
  const timer = setInterval(() => (max = Math.max(max, rssBytes(pid))), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, rssBytes(pid));
    },
  };
}

/** The server's V8 heap in use, from its own /metrics (prom-client's default gauges). */
async function heapUsed(server: ServerProcess): Promise<number> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(await res.text());
  return match ? Number(match[1]) : NaN;
}

/**
 * The JS heap beside RSS, every 500 ms: RSS also holds SQLite's page cache (bounded by the store's
 * cache_size), which fills once on a fresh process whatever reads the pages.
 */
function sampleHeap(server: ServerProcess): { stop(): Promise<number> } {
  let max = 0;
  let pending = Promise.resolve();
  const timer = setInterval(() => {
    pending = heapUsed(server).then((h) => void (max = Math.max(max, h)), () => undefined);
  }, 500);
  return {
    async stop() {
      clearInterval(timer);
      await pending;
      return Math.max(max, await heapUsed(server));
    },
  };
}

interface ExportFigures {
  format: string;
  rows: number;
  bytes: number;
  seconds: number;
  rssBefore: number;
  rssMax: number;
  heapBefore: number;
  heapMax: number;
}

async function exportAll(server: ServerProcess, format: 'jsonl' | 'csv'): Promise<ExportFigures> {
  const heapBefore = await heapUsed(server);
  const rssBefore = rssBytes(server.pid);
  const sampler = sampleRss(server.pid);
  const heap = sampleHeap(server);
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/export/events?format=${format}&params=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  let newlines = 0;
  let bytes = 0;
  const reader = res.body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const chunk = read.value;
    bytes += chunk.byteLength;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
  }
  const seconds = (performance.now() - started) / 1000;
  const rssMax = sampler.stop();
  const heapMax = await heap.stop();
  // The bench's payloads, errors and JSON cells hold no line breaks: a line is a row (CSV: + header).
  return { format, rows: format === 'csv' ? newlines - 1 : newlines, bytes, seconds, rssBefore, rssMax, heapBefore, heapMax };
}

/** Reads at SLOW_BYTES_PER_S for SLOW_SECONDS, then aborts: the server's RSS meanwhile. */
async function slowClient(server: ServerProcess): Promise<{ bytes: number; rssBefore: number; rssMax: number }> {
  const rssBefore = rssBytes(server.pid);
  const sampler = sampleRss(server.pid);
  const controller = new AbortController();
  const res = await fetch(`${server.url}/v1/export/events?format=jsonl&params=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: controller.signal });
  const reader = res.body!.getReader();
  const started = performance.now();
  let bytes = 0;
  while (performance.now() - started < SLOW_SECONDS * 1000) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    const due = (bytes / SLOW_BYTES_PER_S) * 1000 - (performance.now() - started);
    if (due > 0) await new Promise((r) => setTimeout(r, due));
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return { bytes, rssBefore, rssMax: sampler.stop() };
}

function mb(bytes: number): string {
  return (bytes / MB).toFixed(1);
}

async function runEngine(label: string, server: () => Promise<ServerProcess>): Promise<boolean> {
  const running = await server();
  let met = true;
  try {
    const log: string[] = [];
    running.child.stdout?.on('data', (d: Buffer) => log.push(...d.toString().split('\n').filter((l) => l.includes('"export ended"'))));
    console.log(`\n${label}: server pid ${running.pid}, RSS at start ${mb(rssBytes(running.pid))} MB, load ${os.loadavg()[0]!.toFixed(2)}`);
    console.log('format   rows        MB      s      rows/s    MB/s   RSS before  RSS max  growth   heap before  heap max (MB)');
    let heapGrowth = 0;
    for (const format of ['jsonl', 'csv', 'jsonl'] as const) {
      const f = await exportAll(running, format);
      heapGrowth = Math.max(heapGrowth, f.heapMax - f.heapBefore);
      const growth = f.rssMax - f.rssBefore;
      if (f.rows !== EVENTS) throw new Error(`${format} export wrote ${f.rows} rows, expected ${EVENTS}`);
      met &&= growth < RSS_TARGET_MB * MB;
      console.log(
        `${f.format.padEnd(6)} ${f.rows.toLocaleString('en').padStart(10)} ${mb(f.bytes).padStart(8)} ${f.seconds.toFixed(1).padStart(6)} ${Math.round(f.rows / f.seconds).toLocaleString('en').padStart(10)} ${(f.bytes / MB / f.seconds).toFixed(1).padStart(7)} ${mb(f.rssBefore).padStart(10)} ${mb(f.rssMax).padStart(8)} ${mb(growth).padStart(8)} ${mb(f.heapBefore).padStart(12)} ${mb(f.heapMax).padStart(9)}`,
      );
    }
    console.log(`the first export is the fresh process's first read of the store: its RSS also takes in SQLite's page cache (the store's cache_size) and V8 sizing its heap; JS heap growth at most ${mb(heapGrowth)} MB`);
    const slow = await slowClient(running);
    const slowGrowth = slow.rssMax - slow.rssBefore;
    met &&= slowGrowth < RSS_TARGET_MB * MB;
    console.log(`slow client (${mb(SLOW_BYTES_PER_S)} MB/s for ${SLOW_SECONDS} s, then gone): read ${mb(slow.bytes)} MB; RSS before ${mb(slow.rssBefore)}, max ${mb(slow.rssMax)}, growth ${mb(slowGrowth)} MB`);
    // The walk ends when the server sees the socket close: wait for its line, a bounded while.
    const deadline = Date.now() + 10_000;
    while (!log.some((l) => l.includes('client_closed')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const ended = log.find((l) => l.includes('client_closed'));
    console.log(ended ? `server log after the slow client left: ${ended.trim()}` : 'server log: no client_closed line within 10 s (MISSED)');
    met &&= ended !== undefined;
  } finally {
    await running.stop();
  }
  return met;
}

const keep = process.env.BENCH_DIR;
const reuse = keep !== undefined && fs.existsSync(path.join(keep, 'switchboard.db'));
const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-export-'));
console.log(`bench:export: ${EVENTS.toLocaleString('en')} events, node ${process.version}, ${os.cpus().length} cpus, target RSS growth < ${RSS_TARGET_MB} MB`);
if (!reuse) {
  const started = performance.now();
  fs.mkdirSync(dir, { recursive: true });
  await fill(dir);
  console.log(`filled SQLite in ${((performance.now() - started) / 1000).toFixed(0)} s (${dir})`);
} else console.log(`SQLite store ${dir} (reused)`);

const serverEnv = { SWITCHBOARD_DEMO: 'off', SWITCHBOARD_RATE_LIMIT_PER_S: '0', SWITCHBOARD_LOG_LEVEL: 'info', SWITCHBOARD_METRICS: 'on' };
let met = await runEngine('SQLite', () => startServerProcess({ dataDir: dir, token: TOKEN, env: serverEnv, baseEnv: 'inherit', stdout: 'capture' }));

const adminUrl = process.env.BENCH_DATABASE_URL;
if (adminUrl) {
  const database = await createSpecDatabase(adminUrl, 'bench_export');
  try {
    const started = performance.now();
    await fill(database.url);
    console.log(`\nfilled PostgreSQL in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-export-pg-'));
    met = (await runEngine('PostgreSQL', () => startServerProcess({ dataDir: pgDir, databaseUrl: database.url, token: TOKEN, env: serverEnv, baseEnv: 'inherit', stdout: 'capture' }))) && met;
    fs.rmSync(pgDir, { recursive: true, force: true });
  } finally {
    await database.drop();
  }
}
if (!keep) fs.rmSync(dir, { recursive: true, force: true });
console.log(`\nRSS growth under ${RSS_TARGET_MB} MB on every export: ${met ? 'met' : 'MISSED'}`);
process.exit(met ? 0 : 1);
