/**
 * npm run bench:resume [-- ITEMS]: how responsive the server stays while runtime.resume releases a
 * large queue (100,000 queued publishes by default). Seeds the queue straight into a fresh store
 * (publishing 100,000 events one durable call at a time would take minutes), starts the real server
 * as a fresh process, measures health.ping latency at rest, then during the resume, from one
 * sequential client, and prints both with the load average.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { startServerProcess } from '@switchboard/testkit';

const root = fileURLToPath(new URL('../', import.meta.url));
const ITEMS = Number(process.argv[2] ?? 100_000);
const TOKEN = 'sbk_bench_resume_token_000000001';
const BUNDLE = path.join(root, 'apps/server/test/bundles/control.yaml');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-resume-'));

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const server = await startServerProcess({
    baseEnv: 'inherit',
    dataDir,
    token: TOKEN,
    env: { SWITCHBOARD_BUNDLE: BUNDLE, SWITCHBOARD_DEMO: 'off', SWITCHBOARD_RATE_LIMIT_PER_S: '0', SWITCHBOARD_LOG_LEVEL: 'warn' },
    stderr: 'inherit',
    readyPollMs: 100,
  });
  return { child: server.child, url: server.url };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function rpc(url: string, method: string, params: unknown = {}): Promise<any> {
  const res = await fetch(url + '/v1/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
function summary(latencies: number[]): string {
  const s = [...latencies].sort((a, b) => a - b);
  return `${s.length} pings, p50 ${pct(s, 50).toFixed(1)} ms, p99 ${pct(s, 99).toFixed(1)} ms, max ${(s.at(-1) ?? NaN).toFixed(1)} ms`;
}

async function pingWhile(url: string, keepGoing: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (keepGoing()) {
    const t = performance.now();
    await rpc(url, 'health.ping');
    latencies.push(performance.now() - t);
  }
  return latencies;
}

// 1. A migrated store with ingress paused, and the bundle's fingerprint.
let server = await startServer();
const status = await rpc(server.url, 'runtime.status');
await rpc(server.url, 'runtime.pause', { reason: 'bench:resume' });
await stop(server.child);

// 2. The queue, written the way a paused publish writes it.
const seedStarted = performance.now();
const db = new BetterSqlite3(path.join(dataDir, 'switchboard.db'));
const now = new Date().toISOString();
const insertRun = db.prepare(`insert into runs (run_id, status, root_event_id, event_name, entity_id, bundle_fingerprint, created_at, settled_at) values (?, 'queued', ?, 'tick', null, ?, ?, null)`);
const insertQueued = db.prepare(`insert into ingress_queue (queue_id, event_id, run_id, event_name, payload, entity_id, source, status, queued_at, released_at) values (?, ?, ?, 'tick', ?, null, 'bench', 'queued', ?, null)`);
db.transaction(() => {
  for (let i = 0; i < ITEMS; i++) {
    const n = String(i).padStart(8, '0');
    insertRun.run(`run_bench${n}`, `evt_bench${n}`, status.bundle.fingerprint, now);
    insertQueued.run(`q_bench${n}`, `evt_bench${n}`, `run_bench${n}`, JSON.stringify({ n: i }), now);
  }
})();
db.close();
console.log(`bench:resume: seeded ${ITEMS} queued publishes in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

// 3. Fresh server process; ping at rest, then during the resume.
server = await startServer();
const restUntil = performance.now() + 3000;
const atRest = await pingWhile(server.url, () => performance.now() < restUntil);
const load = os.loadavg();
let resuming = true;
const resumeStarted = performance.now();
const resume = rpc(server.url, 'runtime.resume').finally(() => (resuming = false));
const during = await pingWhile(server.url, () => resuming);
const released = (await resume).released as number;
const resumeSeconds = (performance.now() - resumeStarted) / 1000;
const loadAfter = os.loadavg();
await stop(server.child);
fs.rmSync(dataDir, { recursive: true, force: true });

console.log(`load average before ${load.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
console.log(`resume released ${released} in ${resumeSeconds.toFixed(1)} s (${Math.round(released / resumeSeconds)} items/s)`);
console.log(`health.ping at rest:        ${summary(atRest)}`);
console.log(`health.ping during resume:  ${summary(during)}`);
const p99 = pct([...during].sort((a, b) => a - b), 99);
console.log(`target p99 < 100 ms during the resume: ${p99 < 100 ? 'met' : 'MISSED'} (${p99.toFixed(1)} ms)`);
