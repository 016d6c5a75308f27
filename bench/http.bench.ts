/**
 * npm run bench:http: the HTTP data path beside its baselines, as fresh processes, alternating
 * round by round (the order flips every round), with the load average per round, then medians and
 * ratios. Load generator: wrk when installed, else autocannon (bench/load-generator.ts; loopback
 * only); the first line says which ran. Only ratios taken in one run mean anything on a shared
 * 2-core machine.
 *
 *   ping     health.ping through the full stack (auth, validation, rate limiter, access log at info)
 *            vs a bare node:http server doing auth + parse + dispatch (bench/baselines).
 *   publish  durable event.publish (one event per call, synchronous=FULL) at 1 and 64 connections
 *            vs raw better-sqlite3 single-row autocommit inserts, synchronous=FULL, same disk.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_SECONDS (8 per measurement), BENCH_SCENARIOS (ping,publish),
 * BENCH_BEFORE_ROOT (a checkout of an earlier commit, with node_modules: its server joins the ping
 * and publish rounds as "before", for a before/after ratio taken in the same run), BENCH_TRACED=1
 * (this checkout with OpenTelemetry tracing on and every span sampled joins them as "traced"),
 * BENCH_LOAD_GENERATOR and BENCH_WRK_THREADS (bench/load-generator.ts).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadGeneratorLabel, REQUEST_COUNTER, runLoad, type LoadFigures } from './load-generator';
import { loadAverage, median, startProcess, stop } from './rounds';
import BetterSqlite3 from 'better-sqlite3';

const root = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'ping,publish').split(',');
const TOKEN = 'sbk_bench_http_token_0000000001';
const BUNDLE = path.join(root, 'apps/server/test/bundles/control.yaml');

type Measured = LoadFigures;

const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT;
/** BENCH_TRACED=1: this checkout also runs with OpenTelemetry tracing on (every span sampled), as "traced". */
const TRACED = process.env.BENCH_TRACED === '1';

function load(port: number, connections: number, body: string, seconds = SECONDS): Promise<Measured> {
  return runLoad({ port, token: TOKEN, connections, seconds, body });
}

async function serverUnderTest(cwd = root, extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-http-'));
  const { child, port } = await startProcess('apps/server/src/main.ts', {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_TOKEN: TOKEN,
    SWITCHBOARD_BUNDLE: BUNDLE,
    SWITCHBOARD_DEMO: 'off',
    SWITCHBOARD_LOG_LEVEL: 'info',
    // The limiter runs, with a budget this benchmark cannot spend.
    SWITCHBOARD_RATE_LIMIT_PER_S: '100000000',
    ...extraEnv,
  }, cwd);
  return { child, port, dataDir };
}

const ping = '{"jsonrpc":"2.0","id":1,"method":"health.ping"}';
// Each publish carries its own id and payload: the load generator puts a counter at REQUEST_COUNTER.
const publish = `{"jsonrpc":"2.0","id":${REQUEST_COUNTER},"method":"event.publish","params":{"event_name":"tick","payload":{"n":${REQUEST_COUNTER}}}}`;

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

const millis = (x: number) => String(Number(x.toFixed(2)));
const fmt = (m: Measured) =>
  `${Math.round(m.rps)} req/s, p50 ${millis(m.p50)} ms, p99 ${millis(m.p99)} ms${m.errors ? `, ${m.errors} errors` : ''}${m.non2xx ? `, ${m.non2xx} non-2xx` : ''}`;

/**
 * An OTLP/HTTP receiver that accepts every export and keeps nothing: the traced contender's spans
 * go here, so its cost is the SDK's (span creation, batching, serialising, sending), not a collector's.
 */
async function startSpanSink(): Promise<{ url: string; spans: () => number; close: () => void }> {
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans: () => bytes, close: () => server.close() };
}

const spanSink = TRACED ? await startSpanSink() : undefined;

/** The servers compared round by round: this checkout, an earlier one, and this one with tracing on. */
const servers: Record<string, () => ReturnType<typeof serverUnderTest>> = {
  project: () => serverUnderTest(),
  ...(BEFORE_ROOT ? { before: () => serverUnderTest(BEFORE_ROOT) } : {}),
  ...(spanSink
    ? {
        traced: () =>
          serverUnderTest(root, {
            OTEL_TRACES_EXPORTER: 'otlp',
            OTEL_EXPORTER_OTLP_ENDPOINT: spanSink.url,
            OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
            OTEL_TRACES_SAMPLER: 'always_on',
          }),
      }
    : {}),
};

console.log(`bench:http: load generator ${loadGeneratorLabel}, ${ROUNDS} rounds, ${SECONDS} s per measurement, node ${process.version}, ${os.cpus().length} cpus`);

async function measureServer(name: string, measure: (port: number) => Promise<Measured[]>): Promise<Measured[]> {
  const s = await servers[name]!();
  try {
    return await measure(s.port);
  } finally {
    await stop(s.child);
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
}

function compareServers(scenario: string, figures: Record<string, Measured[]>): void {
  const project = median(figures.project!.map((m) => m.rps));
  for (const [name, ms] of Object.entries(figures)) {
    if (name === 'project' || !servers[name]) continue;
    const rps = median(ms.map((m) => m.rps));
    const p99 = median(ms.map((m) => m.p99));
    // before: what this checkout keeps of an earlier one's throughput; traced: what tracing keeps of this checkout's.
    const ratio = name === 'before' ? `project/before throughput ${(project / rps).toFixed(3)}x (before: ${BEFORE_ROOT})` : `${name}/project throughput ${(rps / project).toFixed(3)}x`;
    console.log(`${scenario} ${name}: ${Math.round(rps)} req/s p99 ${millis(p99)} ms; ${ratio}`);
  }
}

if (SCENARIOS.includes('ping')) {
  const figures: Record<string, Measured[]> = Object.fromEntries([...Object.keys(servers), 'baseline'].map((k) => [k, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    const contenders = Object.keys(figures);
    const order = round % 2 ? contenders : [...contenders].reverse();
    for (const which of order) {
      let m: Measured;
      if (which === 'baseline') {
        const b = await startProcess('bench/baselines/http-ping-baseline.ts', { BASELINE_TOKEN: TOKEN }, root);
        await load(b.port, 64, ping, 1);
        m = await load(b.port, 64, ping);
        await stop(b.child);
      } else {
        [m] = (await measureServer(which, async (port) => {
          await load(port, 64, ping, 1);
          return [await load(port, 64, ping)];
        })) as [Measured];
      }
      figures[which]!.push(m);
      console.log(`  ping round ${round} ${which.padEnd(9)} 64c: ${fmt(m)} (load ${loadAverage()})`);
    }
  }
  const pr = median(figures.project!.map((m) => m.rps));
  const br = median(figures.baseline!.map((m) => m.rps));
  const pp = median(figures.project!.map((m) => m.p99));
  const bp = median(figures.baseline!.map((m) => m.p99));
  console.log(`ping medians: project ${Math.round(pr)} req/s p99 ${millis(pp)} ms; baseline ${Math.round(br)} req/s p99 ${millis(bp)} ms`);
  console.log(`ping ratios: throughput ${(pr / br).toFixed(2)}x the baseline (target >= 0.5x); p99 ${(pp / bp).toFixed(2)}x (target <= 2x)`);
  compareServers('ping', figures);
}

if (SCENARIOS.includes('publish')) {
  const figures: Record<string, Measured[]> = Object.fromEntries(Object.keys(servers).map((k) => [k, []]));
  const at1: Measured[] = [];
  const raw: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const contenders = [...Object.keys(servers), 'raw'];
    const order = round % 2 ? contenders : [...contenders].reverse();
    for (const which of order) {
      if (which === 'raw') {
        const rows = rawInsertBaseline(SECONDS);
        raw.push(rows);
        console.log(`  publish round ${round} raw single-row autocommit inserts: ${Math.round(rows)} rows/s (load ${loadAverage()})`);
        continue;
      }
      const [many, one] = await measureServer(which, async (port) => {
        const single = which === 'project' ? [await load(port, 1, publish)] : [];
        return [await load(port, 64, publish), ...single];
      });
      figures[which]!.push(many!);
      if (one) at1.push(one);
      console.log(`  publish round ${round} ${which.padEnd(8)} ${one ? `1c: ${fmt(one)}; ` : ''}64c: ${fmt(many!)} (load ${loadAverage()})`);
    }
  }
  const one = median(at1.map((m) => m.rps));
  const at64 = figures.project!;
  const many = median(at64.map((m) => m.rps));
  const rows = median(raw);
  console.log(`publish medians: 1c ${Math.round(one)} events/s; 64c ${Math.round(many)} events/s, p99 ${millis(median(at64.map((m) => m.p99)))} ms; raw ${Math.round(rows)} rows/s`);
  console.log(
    `publish ratios: 64c ${(many / rows).toFixed(2)}x the raw baseline (target >= 1.5x); 64c ${(many / one).toFixed(2)}x 1c (target >= 8x); p99 ${millis(median(at64.map((m) => m.p99)))} ms (target <= 50 ms)`,
  );
  compareServers('publish 64c', figures);
}

if (spanSink) {
  console.log(`traced: the span sink received ${(spanSink.spans() / 1e6).toFixed(1)} MB of OTLP JSON`);
  spanSink.close();
}
