/**
 * npm run bench:http: the HTTP data path beside its baselines, as fresh processes, alternating
 * round by round (the order flips every round), with the load average per round, then medians and
 * ratios. Load generator: autocannon (in this process, loopback only). Only ratios taken in one run
 * mean anything on a shared 2-core machine.
 *
 *   ping     health.ping through the full stack (auth, validation, rate limiter, access log at info)
 *            vs a bare node:http server doing auth + parse + dispatch (bench/baselines).
 *   publish  durable event.publish (one event per call, synchronous=FULL) at 1 and 64 connections
 *            vs raw better-sqlite3 single-row autocommit inserts, synchronous=FULL, same disk.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_SECONDS (8 per measurement), BENCH_SCENARIOS (ping,publish),
 * BENCH_BEFORE_ROOT (a checkout of an earlier commit, with node_modules: its server joins the ping
 * and publish rounds as "before", for a before/after ratio taken in the same run).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, median, startProcess, stop } from './rounds';
import autocannon from 'autocannon';
import BetterSqlite3 from 'better-sqlite3';

const root = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'ping,publish').split(',');
const TOKEN = 'sbk_bench_http_token_0000000001';
const BUNDLE = path.join(root, 'apps/server/test/bundles/control.yaml');

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT;



async function load(port: number, connections: number, body: () => string, seconds = SECONDS): Promise<Measured> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/rpc`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts };
}

async function serverUnderTest(cwd = root): Promise<{ child: ChildProcess; port: number; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-http-'));
  const { child, port } = await startProcess('apps/server/src/main.ts', {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_TOKEN: TOKEN,
    SWITCHBOARD_BUNDLE: BUNDLE,
    SWITCHBOARD_DEMO: 'off',
    SWITCHBOARD_LOG_LEVEL: 'info',
    // The limiter runs, with a budget this benchmark cannot spend.
    SWITCHBOARD_RATE_LIMIT_PER_S: '100000000',
  }, cwd);
  return { child, port, dataDir };
}

const ping = () => '{"jsonrpc":"2.0","id":1,"method":"health.ping"}';
let n = 0;
const publish = () => `{"jsonrpc":"2.0","id":${++n},"method":"event.publish","params":{"event_name":"tick","payload":{"n":${n}}}}`;

/** Rows/s of single-row autocommit inserts with synchronous=FULL, for `seconds`, in a fresh file on the same disk. */
function rawInsertBaseline(seconds: number): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-raw-'));
  const db = new BetterSqlite3(path.join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('create table events (seq integer primary key, event_id text, payload text, created_at text)');
  const insert = db.prepare('insert into events (event_id, payload, created_at) values (?, ?, ?)');
  const until = performance.now() + seconds * 1000;
  let rows = 0;
  while (performance.now() < until) {
    insert.run(`evt_${rows}`, `{"n":${rows}}`, new Date().toISOString());
    rows++;
  }
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return rows / seconds;
}

const fmt = (m: Measured) => `${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms${m.errors ? `, ${m.errors} errors` : ''}`;

console.log(`bench:http: load generator autocannon, ${ROUNDS} rounds, ${SECONDS} s per measurement, node ${process.version}, ${os.cpus().length} cpus`);

if (SCENARIOS.includes('ping')) {
  const project: Measured[] = [];
  const baseline: Measured[] = [];
  const before: Measured[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const contenders = BEFORE_ROOT ? ['project', 'baseline', 'before'] : ['project', 'baseline'];
    const order = round % 2 ? contenders : [...contenders].reverse();
    for (const which of order) {
      if (which === 'before') {
        const s = await serverUnderTest(BEFORE_ROOT);
        await load(s.port, 64, ping, 1);
        const m = await load(s.port, 64, ping);
        before.push(m);
        console.log(`  ping round ${round} before    64c: ${fmt(m)} (load ${loadAverage()})`);
        await stop(s.child);
        fs.rmSync(s.dataDir, { recursive: true, force: true });
      } else if (which === 'project') {
        const s = await serverUnderTest();
        await load(s.port, 64, ping, 1);
        const m = await load(s.port, 64, ping);
        project.push(m);
        console.log(`  ping round ${round} project   64c: ${fmt(m)} (load ${loadAverage()})`);
        await stop(s.child);
        fs.rmSync(s.dataDir, { recursive: true, force: true });
      } else {
        const b = await startProcess('bench/baselines/http-ping-baseline.ts', { BASELINE_TOKEN: TOKEN }, root);
        await load(b.port, 64, ping, 1);
        const m = await load(b.port, 64, ping);
        baseline.push(m);
        console.log(`  ping round ${round} baseline  64c: ${fmt(m)} (load ${loadAverage()})`);
        await stop(b.child);
      }
    }
  }
  const pr = median(project.map((m) => m.rps));
  const br = median(baseline.map((m) => m.rps));
  const pp = median(project.map((m) => m.p99));
  const bp = median(baseline.map((m) => m.p99));
  console.log(`ping medians: project ${Math.round(pr)} req/s p99 ${pp} ms; baseline ${Math.round(br)} req/s p99 ${bp} ms`);
  console.log(`ping ratios: throughput ${(pr / br).toFixed(2)}x the baseline (target >= 0.75x); p99 ${(pp / bp).toFixed(2)}x (target <= 2x)`);
  if (before.length) {
    const fr = median(before.map((m) => m.rps));
    const fp = median(before.map((m) => m.p99));
    console.log(`ping before (${BEFORE_ROOT}): ${Math.round(fr)} req/s p99 ${fp} ms = ${(fr / br).toFixed(2)}x the baseline; now ${(pr / fr).toFixed(2)}x the before throughput`);
  }
}

if (SCENARIOS.includes('publish')) {
  const at1: Measured[] = [];
  const at64: Measured[] = [];
  const before64: Measured[] = [];
  const raw: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const contenders = BEFORE_ROOT ? ['project', 'raw', 'before'] : ['project', 'raw'];
    const order = round % 2 ? contenders : [...contenders].reverse();
    for (const which of order) {
      if (which === 'project') {
        const s = await serverUnderTest();
        const one = await load(s.port, 1, publish);
        const many = await load(s.port, 64, publish);
        at1.push(one);
        at64.push(many);
        console.log(`  publish round ${round} project  1c: ${fmt(one)}; 64c: ${fmt(many)} (load ${loadAverage()})`);
        await stop(s.child);
        fs.rmSync(s.dataDir, { recursive: true, force: true });
      } else if (which === 'before') {
        const s = await serverUnderTest(BEFORE_ROOT);
        const many = await load(s.port, 64, publish);
        before64.push(many);
        console.log(`  publish round ${round} before   64c: ${fmt(many)} (load ${loadAverage()})`);
        await stop(s.child);
        fs.rmSync(s.dataDir, { recursive: true, force: true });
      } else {
        const rows = rawInsertBaseline(SECONDS);
        raw.push(rows);
        console.log(`  publish round ${round} raw single-row autocommit inserts: ${Math.round(rows)} rows/s (load ${loadAverage()})`);
      }
    }
  }
  const one = median(at1.map((m) => m.rps));
  const many = median(at64.map((m) => m.rps));
  const rows = median(raw);
  console.log(`publish medians: 1c ${Math.round(one)} events/s; 64c ${Math.round(many)} events/s, p99 ${median(at64.map((m) => m.p99))} ms; raw ${Math.round(rows)} rows/s`);
  console.log(
    `publish ratios: 64c ${(many / rows).toFixed(2)}x the raw baseline (target >= 2x); 64c ${(many / one).toFixed(2)}x 1c (target >= 8x); p99 ${median(at64.map((m) => m.p99))} ms (target <= 50 ms)`,
  );
  if (before64.length) {
    const fr = median(before64.map((m) => m.rps));
    console.log(`publish before (${BEFORE_ROOT}): 64c ${Math.round(fr)} events/s, p99 ${median(before64.map((m) => m.p99))} ms; now ${(many / fr).toFixed(2)}x the before throughput`);
  }
}
