/**
 * npm run bench:cost: the CPU each unit of work costs, this checkout beside an earlier one
 * (BENCH_BEFORE_ROOT), read from /proc rather than inferred from throughput. On a shared 2-core
 * machine a throughput median moves 10-15% between rounds of the same tree; CPU time per request
 * or per delivery moves far less, so it tells whether a change made the work dearer.
 *
 *   ping     one SQLite server, health.ping from wrk at 64 connections for BENCH_SECONDS after
 *            3 s of the same untimed: the server's CPU per request (its main thread is saturated
 *            here, so this is about 1 / throughput; the PostgreSQL scenarios leave CPU to spare).
 *   drain    2 servers on a fresh PostgreSQL database drain a backlog (bench:pg's drain: 10,000
 *            untimed, then BENCH_DELIVERIES timed): deliveries/s of the timed part, and CPU per
 *            delivery over both parts in the servers and in PostgreSQL (every postgres process,
 *            with the backends that exited counted through the postmaster's reaped children).
 *   publish  the same 2 servers, durable event.publish from one wrk per server (32 connections
 *            each) for BENCH_SECONDS after 5 s untimed: publishes/s, CPU per publish in the
 *            servers and in PostgreSQL.
 *
 * Rounds alternate the trees, the order flipping every round; each round's servers are new
 * processes. Prints per-round figures with the load average, medians and after/before ratios.
 * Environment: BENCH_BEFORE_ROOT (a checkout with node_modules), BENCH_ROUNDS (3), BENCH_SECONDS
 * (8), BENCH_SCENARIOS (ping,drain,publish), BENCH_DATABASE_URL (as bench:pg), BENCH_DELIVERIES.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './load-generator';
import { freshCluster } from './pg/cluster';
import { drainBacklog } from './pg/drain';
import { TOKEN, root } from './pg/settings';
import { loadAverage, median, startProcess, stop } from './rounds';

const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'ping,drain,publish').split(',');
const trees: Record<string, string> = { after: root, ...(BEFORE_ROOT ? { before: path.resolve(BEFORE_ROOT) } : {}) };

/** CPU milliseconds a process has used (user + system), from /proc/<pid>/stat. */
function processCpuMs(pid: number, withReapedChildren = false): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ": state is field 0, utime 11, stime 12, cutime 13, cstime 14 (clock ticks).
  const ticks = Number(fields[11]) + Number(fields[12]) + (withReapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  return (ticks * 1000) / 100;
}

/** CPU milliseconds of every postgres process, the backends already gone included. */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/stat`, 'utf8').includes(' (postgres) ')) continue;
      total += processCpuMs(Number(entry), true);
    } catch {
      // The process ended while the list was read.
    }
  }
  return total;
}

interface Figures {
  /** Units of work per second. */
  rate: number;
  /** Microseconds of server CPU per unit. */
  serverUs: number;
  /** Microseconds of PostgreSQL CPU per unit (PostgreSQL scenarios). */
  postgresUs?: number;
}

async function pingRound(tree: string): Promise<Figures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-cost-'));
  const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TOKEN: TOKEN, SWITCHBOARD_DEMO: 'off', SWITCHBOARD_LOG_LEVEL: 'info', SWITCHBOARD_RATE_LIMIT_PER_S: '100000000' };
  const { child, port } = await startProcess('apps/server/src/main.ts', env, tree);
  try {
    const body = '{"jsonrpc":"2.0","id":1,"method":"health.ping"}';
    await runLoad({ port, token: TOKEN, connections: 64, seconds: 3, body });
    const cpu0 = processCpuMs(child.pid!);
    const run = await runLoad({ port, token: TOKEN, connections: 64, seconds: SECONDS, body });
    const cpuMs = processCpuMs(child.pid!) - cpu0;
    return { rate: run.rps, serverUs: (cpuMs * 1000) / (run.rps * SECONDS) };
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function postgresRound(tree: string): Promise<{ drain?: Figures; publish?: Figures }> {
  const cluster = await freshCluster('postgres', tree);
  const pids = cluster.children.map((c) => c.pid!);
  const serversCpuMs = () => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  try {
    const out: { drain?: Figures; publish?: Figures } = {};
    if (SCENARIOS.includes('drain')) {
      const [server0, postgres0] = [serversCpuMs(), postgresCpuMs()];
      const drains = await drainBacklog(cluster);
      const delivered = drains.timed.delivered + (drains.warmup?.delivered ?? 0);
      out.drain = { rate: drains.timed.perSecond, serverUs: ((serversCpuMs() - server0) * 1000) / delivered, postgresUs: ((postgresCpuMs() - postgres0) * 1000) / delivered };
    }
    if (SCENARIOS.includes('publish')) {
      const ports = cluster.nodes.map((n) => n.port);
      const body = '{"jsonrpc":"2.0","id":1,"method":"event.publish","params":{"event_name":"note","payload":{"n":__N__}}}';
      const loadAll = (seconds: number) => Promise.all(ports.map((port) => runLoad({ port, token: TOKEN, connections: 32, seconds, body })));
      await loadAll(5);
      const [server0, postgres0] = [serversCpuMs(), postgresCpuMs()];
      const runs = await loadAll(SECONDS);
      const published = runs.reduce((sum, r) => sum + r.rps, 0) * SECONDS;
      out.publish = { rate: published / SECONDS, serverUs: ((serversCpuMs() - server0) * 1000) / published, postgresUs: ((postgresCpuMs() - postgres0) * 1000) / published };
    }
    return out;
  } finally {
    await cluster.dispose();
  }
}

const figures: Record<string, Record<string, Figures[]>> = { ping: {}, drain: {}, publish: {} };
const record = (scenario: string, tree: string, f: Figures | undefined) => {
  if (!f) return;
  (figures[scenario]![tree] ??= []).push(f);
  const pg = f.postgresUs === undefined ? '' : `, PostgreSQL ${f.postgresUs.toFixed(0)} us`;
  console.log(`  ${scenario.padEnd(7)} ${tree.padEnd(6)} ${f.rate.toFixed(0).padStart(6)}/s, server CPU ${f.serverUs.toFixed(0)} us${pg} per unit (load ${loadAverage()})`);
};

console.log(`bench:cost: ${ROUNDS} rounds, ${SECONDS} s per measurement, ${SCENARIOS.join(',')}, trees ${Object.entries(trees).map(([k, v]) => `${k}=${v}`).join(' ')}, node ${process.version}, ${os.cpus().length} cpus`);
for (let round = 1; round <= ROUNDS; round++) {
  const order = Object.keys(trees);
  if (round % 2 === 0) order.reverse();
  console.log(`round ${round}`);
  for (const name of order) {
    if (SCENARIOS.includes('ping')) record('ping', name, await pingRound(trees[name]!));
    if (SCENARIOS.includes('drain') || SCENARIOS.includes('publish')) {
      const pg = await postgresRound(trees[name]!);
      record('drain', name, pg.drain);
      record('publish', name, pg.publish);
    }
  }
}

console.log('\nmedians            rate/s (after/before)     server CPU us/unit (after/before)   PostgreSQL CPU us/unit (after/before)');
for (const [scenario, byTree] of Object.entries(figures)) {
  if (!byTree.after) continue;
  const m = (tree: string, pick: (f: Figures) => number | undefined) => {
    const xs = (byTree[tree] ?? []).map(pick).filter((x): x is number => x !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  const cell = (pick: (f: Figures) => number | undefined) => {
    const [a, b] = [m('after', pick), m('before', pick)];
    if (a === undefined) return '-'.padEnd(34);
    return (b === undefined ? a.toFixed(0) : `${a.toFixed(0)} / ${b.toFixed(0)} (${(a / b).toFixed(2)}x)`).padEnd(34);
  };
  console.log(`${scenario.padEnd(18)} ${cell((f) => f.rate)} ${cell((f) => f.serverUs)} ${cell((f) => f.postgresUs)}`);
}
process.exit(0);
