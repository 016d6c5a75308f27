/**
 * npm run bench:dispatch: the dispatcher's throughput and publish-to-delivery latency, in fresh
 * processes, alternating round by round with an earlier checkout when BENCH_BEFORE_ROOT is set
 * (the order flips every round), with the load average per round, then medians and ratios.
 *
 *   throughput  BENCH_DELIVERIES (5,000) publishes queued with the dispatcher stopped, then the
 *               dispatcher started: deliveries claimed, run by a near no-op node (a transform that
 *               emits an event nobody subscribes to) and recorded, per second. Target >= 5,000/s.
 *   latency     100 publishes/s for BENCH_SECONDS (5) with the dispatcher running: time from the
 *               event's commit to its delivery's commit (an upper bound of publish-to-handler).
 *               Target p50 <= 10 ms.
 *
 * The rounds run `bench/dispatch-worker.ts` from this checkout against the packages of the
 * checkout under test, so the before and after run the same measurement code. With
 * BENCH_DATABASE_URL (a PostgreSQL role that may create databases) each round runs on a fresh
 * PostgreSQL database instead of SQLite (one process: the single-node figure).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, median } from './rounds';

const root = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT;

export interface WorkerResult {
  deliveriesPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  published: number;
}

function runWorker(packagesRoot: string): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/dispatch-worker.ts'), packagesRoot], {
      cwd: packagesRoot,
      env: process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`dispatch worker exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as WorkerResult);
    });
  });
}

const fmt = (r: WorkerResult) => `${Math.round(r.deliveriesPerSecond)} deliveries/s; latency p50 ${r.latencyP50.toFixed(1)} ms, p99 ${r.latencyP99.toFixed(1)} ms`;

console.log(`bench:dispatch: ${ROUNDS} rounds, node ${process.version}, ${os.cpus().length} cpus${BEFORE_ROOT ? `, before = ${BEFORE_ROOT}` : ''}`);
const results: Record<'project' | 'before', WorkerResult[]> = { project: [], before: [] };
for (let round = 1; round <= ROUNDS; round++) {
  const contenders: ('project' | 'before')[] = BEFORE_ROOT ? ['project', 'before'] : ['project'];
  for (const which of round % 2 ? contenders : [...contenders].reverse()) {
    const r = await runWorker(which === 'project' ? root : BEFORE_ROOT!);
    results[which].push(r);
    console.log(`  round ${round} ${which.padEnd(7)} ${fmt(r)} (load ${loadAverage()})`);
  }
}
const summary = (rs: WorkerResult[]) => ({
  dps: median(rs.map((r) => r.deliveriesPerSecond)),
  p50: median(rs.map((r) => r.latencyP50)),
  p99: median(rs.map((r) => r.latencyP99)),
});
const p = summary(results.project);
console.log(`dispatch medians: ${Math.round(p.dps)} deliveries/s (target >= 5,000/s); publish-to-delivery p50 ${p.p50.toFixed(1)} ms (target <= 10 ms), p99 ${p.p99.toFixed(1)} ms`);
if (BEFORE_ROOT) {
  const b = summary(results.before);
  console.log(`dispatch before: ${Math.round(b.dps)} deliveries/s, p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms; now ${(p.dps / b.dps).toFixed(2)}x the before throughput`);
}
