/**
 * npm run bench:ws: heartbeats to many idle subscribers, the server beside a bare `ws` broadcast
 * (bench/baselines/ws-heartbeat-baseline.ts), as fresh processes, alternating round by round (the
 * order flips every round), with the load average per round, then medians and ratios.
 *
 * Per round and contender: BENCH_WS_CLIENTS (10,000) WebSocket clients connect (and, on the
 * server, each sends health.subscribe); then, over BENCH_WS_BEATS (10) heartbeat intervals of
 * 1 s, the server process's CPU time (utime + stime from /proc) per heartbeat round, and its RSS
 * growth per connection. Targets: CPU per round <= 1.5x the baseline's; RSS <= 10 KB per
 * connection. (A subscriber that never reads is bounded by SWITCHBOARD_WS_MAX_BUFFERED_BYTES; see
 * apps/server/test/websocket-backpressure.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, median, startProcess, stop } from './rounds';
import WebSocket from 'ws';

const root = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = Number(process.env.BENCH_WS_CLIENTS ?? 10_000);
const BEATS = Number(process.env.BENCH_WS_BEATS ?? 10);
const INTERVAL_MS = 1000;
const TOKEN = 'sbk_bench_ws_token_00000000000001';
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface Measured {
  cpuMsPerBeat: number;
  rssKbPerConnection: number;
  framesPerClient: number;
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) of a process so far, in ms. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function rssKb(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]);
}

/** Opens `n` clients, 500 at a time; with `subscribe`, each asks for heartbeats. Counts frames received. */
async function connect(port: number, n: number, subscribe: boolean): Promise<{ sockets: WebSocket[]; frames: () => number }> {
  const sockets: WebSocket[] = [];
  let frames = 0;
  const openOne = () =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/ws`, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
      ws.on('message', (data) => {
        if (String(data).includes('"health.heartbeat"')) frames++;
      });
      ws.once('open', () => {
        sockets.push(ws);
        if (subscribe) ws.send('{"jsonrpc":"2.0","id":1,"method":"health.subscribe"}');
        resolve();
      });
      ws.once('error', reject);
    });
  for (let i = 0; i < n; i += 500) await Promise.all(Array.from({ length: Math.min(500, n - i) }, openOne));
  return { sockets, frames: () => frames };
}

async function measure(which: 'project' | 'baseline'): Promise<Measured> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-ws-'));
  const { child, port } =
    which === 'project'
      ? await startProcess('apps/server/src/main.ts', {
          SWITCHBOARD_DATA_DIR: dataDir,
          SWITCHBOARD_TOKEN: TOKEN,
          SWITCHBOARD_BUNDLE: path.join(root, 'apps/server/test/bundles/control.yaml'),
          SWITCHBOARD_DEMO: 'off',
          SWITCHBOARD_LOG_LEVEL: 'warn',
          SWITCHBOARD_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
          SWITCHBOARD_HTTP_MAX_CONNECTIONS: String(CLIENTS + 100),
          SWITCHBOARD_RATE_LIMIT_PER_S: '100000000',
        }, root)
      : await startProcess('bench/baselines/ws-heartbeat-baseline.ts', { BASELINE_INTERVAL_MS: String(INTERVAL_MS) }, root);
  try {
    await sleep(1000);
    const rssBefore = rssKb(child.pid!);
    const clients = await connect(port, CLIENTS, which === 'project');
    // Every client has had a heartbeat before the measured window starts.
    while (clients.frames() < CLIENTS) await sleep(100);
    await sleep(INTERVAL_MS);
    const rssAfter = rssKb(child.pid!);
    const framesBefore = clients.frames();
    const cpuBefore = cpuMs(child.pid!);
    await sleep(BEATS * INTERVAL_MS);
    const cpu = cpuMs(child.pid!) - cpuBefore;
    const framesPerClient = (clients.frames() - framesBefore) / CLIENTS;
    for (const ws of clients.sockets) ws.terminate();
    return { cpuMsPerBeat: cpu / BEATS, rssKbPerConnection: (rssAfter - rssBefore) / CLIENTS, framesPerClient };
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (m: Measured) => `CPU ${m.cpuMsPerBeat.toFixed(1)} ms per heartbeat round, RSS ${m.rssKbPerConnection.toFixed(2)} KB per connection, ${m.framesPerClient.toFixed(1)} frames per client in ${BEATS} intervals`;

console.log(`bench:ws: ${CLIENTS} clients, ${ROUNDS} rounds, ${BEATS} heartbeat intervals of ${INTERVAL_MS} ms measured, node ${process.version}, ${os.cpus().length} cpus`);
const results: Record<'project' | 'baseline', Measured[]> = { project: [], baseline: [] };
for (let round = 1; round <= ROUNDS; round++) {
  const order: ('project' | 'baseline')[] = round % 2 ? ['project', 'baseline'] : ['baseline', 'project'];
  for (const which of order) {
    const m = await measure(which);
    results[which].push(m);
    console.log(`  round ${round} ${which.padEnd(8)} ${fmt(m)} (load ${loadAverage()})`);
  }
}
const cpuP = median(results.project.map((m) => m.cpuMsPerBeat));
const cpuB = median(results.baseline.map((m) => m.cpuMsPerBeat));
const rssP = median(results.project.map((m) => m.rssKbPerConnection));
const rssB = median(results.baseline.map((m) => m.rssKbPerConnection));
console.log(`ws medians: project ${cpuP.toFixed(1)} ms CPU per round, ${rssP.toFixed(2)} KB per connection; baseline ${cpuB.toFixed(1)} ms, ${rssB.toFixed(2)} KB`);
console.log(`ws ratios: CPU per round ${(cpuP / cpuB).toFixed(2)}x the baseline (target <= 1.5x); RSS ${rssP.toFixed(2)} KB per connection (target <= 10 KB)`);
