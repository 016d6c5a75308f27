/**
 * bench:redrive — issue 12's targets on a store holding 10,000 dead letters (and 40,000 ordinary
 * events): how long the redrive estimate takes, whether the operation keeps its chosen rate, and
 * how much it slows event.list (p99 while it runs against p99 idle, in the same process).
 *
 * Each round seeds a fresh data folder, starts the server as a fresh process, and measures idle
 * and during-the-operation event.list load with autocannon; odd rounds measure idle first, even
 * rounds measure it after the operation finished, so drift of a noisy machine does not always
 * favour one side. Prints per-round figures, the load average, medians and the ratio.
 *
 *   npm run bench:redrive             (BENCH_ROUNDS=2, BENCH_RATE=200, BENCH_SECONDS=8)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Store, type BulkEvent } from '@switchboard/store';
import { loadAverage, median, startProcess, stop } from './rounds';

const root = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const DEAD_LETTERS = Number(process.env.BENCH_DEAD_LETTERS ?? 10_000);
const OTHER_EVENTS = Number(process.env.BENCH_OTHER_EVENTS ?? 40_000);
const TOKEN = 'sbk_bench_redrive_token_00000001';
const BUNDLE = path.join(root, 'apps/server/test/bundles/control.yaml');

async function seed(dataDir: string): Promise<void> {
  const store = await Store.open({ dataDir });
  const start = Date.now() - 6 * 3600_000;
  const batch: BulkEvent[] = [];
  const total = DEAD_LETTERS + OTHER_EVENTS;
  const every = Math.max(1, Math.floor(total / DEAD_LETTERS));
  let deadSoFar = 0;
  for (let i = 0; i < total; i++) {
    const created_at = new Date(start + Math.floor((i * 6 * 3600_000) / total)).toISOString();
    const dead = i % every === 0 && deadSoFar < DEAD_LETTERS;
    if (dead) deadSoFar++;
    const event_id = `evt_bench_${i}`;
    const delivery_id = `dlv_bench_${i}`;
    batch.push({
      event: { event_id, event_name: dead ? 'charge.requested' : 'tick', created_at, source: 'bench', payload: JSON.stringify({ n: i }), entity_id: null, run_id: null, chain_depth: 0, parent_event_id: null, has_dead_letter: 0 },
      deliveries: [
        {
          delivery_id,
          run_id: null,
          subscriber_id: dead ? 'note-charge' : 'count-tick',
          subscriber_type: 'node',
          status: dead ? 'failed' : 'delivered',
          attempts: dead ? 2 : 1,
          max_attempts: 2,
          next_attempt_at: created_at,
          lease_owner: null,
          lease_expires_at: null,
          last_error: dead ? 'simulated failure' : null,
          reason_code: dead ? 'handler_error' : null,
          session_id: null,
          created_at,
          updated_at: created_at,
        },
      ],
      dead_letters: dead
        ? [
            {
              dead_letter_id: `dl_bench_${i}`,
              delivery_id,
              run_id: null,
              subscriber_id: 'note-charge',
              chain_depth: 0,
              created_at,
              failure_type: 'handler_error',
              retry_count: 1,
              error_message: 'simulated failure',
              handler_node: 'note-charge',
              reason_code: 'handler_error',
            },
          ]
        : [],
    });
  }
  for (let i = 0; i < batch.length; i += 5000) await store.events.bulkInsert(batch.slice(i, i + 5000));
  await store.close();
}

async function rpc(port: number, method: string, params: unknown): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** The Dead letters screen's first page, under 4 connections. */
async function listLoad(port: number): Promise<{ rps: number; p99: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/rpc`,
    connections: 4,
    duration: SECONDS,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'event.list', params: { filter: { has_dead_letter: true }, limit: 50 } }),
  });
  if (result.errors + result.non2xx > 0) throw new Error(`event.list load had ${result.errors + result.non2xx} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

async function waitFinished(port: number, operationId: string): Promise<any> {
  for (;;) {
    const { operation } = await rpc(port, 'operation.get', { operation_id: operationId, items_limit: 0 });
    if (operation.status !== 'running' && operation.outcomes.pending === 0) return operation;
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Round {
  estimateMs: number[];
  idle: { rps: number; p99: number };
  during: { rps: number; p99: number };
  achievedRate: number;
  delivered: number;
}

async function round(index: number): Promise<Round> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-redrive-'));
  await seed(dataDir);
  const { child, port } = await startProcess(
    'apps/server/src/main.ts',
    { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TOKEN: TOKEN, SWITCHBOARD_BUNDLE: BUNDLE, SWITCHBOARD_DEMO: 'off', SWITCHBOARD_LOG_LEVEL: 'warn', SWITCHBOARD_RATE_LIMIT_PER_S: '100000000' },
    root,
  );
  try {
    const selection = { filter: { event_name: 'charge.requested' } };
    const estimateMs: number[] = [];
    let plan: any;
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      plan = (await rpc(port, 'event.redrive', { dry_run: true, ...selection })).plan;
      estimateMs.push(performance.now() - t);
    }
    if (plan.to_send !== DEAD_LETTERS) throw new Error(`seeded ${DEAD_LETTERS} dead letters, the estimate found ${plan.to_send}`);
    const idleFirst = index % 2 === 1;
    const idleBefore = idleFirst ? await listLoad(port) : undefined;
    const applied = await rpc(port, 'event.redrive', { dry_run: false, ...selection, expected_plan_hash: plan.plan_hash, rate_per_second: RATE });
    const during = await listLoad(port);
    const op = await waitFinished(port, applied.operation.operation_id);
    const idle = idleBefore ?? (await listLoad(port));
    // The operation's own clock: from its creation to its last item.
    const achievedRate = op.counts.total / ((Date.parse(op.finished_at) - Date.parse(op.created_at)) / 1000);
    return { estimateMs, idle, during, achievedRate, delivered: op.outcomes.delivered };
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `bench:redrive: ${DEAD_LETTERS} dead letters + ${OTHER_EVENTS} other events, rate ${RATE}/s, ${ROUNDS} rounds, event.list load 4 connections for ${SECONDS} s, node ${process.version}, ${os.cpus().length} cpus`,
);
const rounds: Round[] = [];
for (let i = 1; i <= ROUNDS; i++) {
  const r = await round(i);
  rounds.push(r);
  console.log(
    `round ${i} (load ${loadAverage()}): estimate median ${median(r.estimateMs).toFixed(0)} ms, max ${Math.max(...r.estimateMs).toFixed(0)} ms; ` +
      `event.list p99 idle ${r.idle.p99} ms (${Math.round(r.idle.rps)} req/s), during ${r.during.p99} ms (${Math.round(r.during.rps)} req/s), ratio ${(r.during.p99 / r.idle.p99).toFixed(2)}; ` +
      `achieved ${r.achievedRate.toFixed(1)}/s of ${RATE}/s; delivered ${r.delivered}`,
  );
}
console.log(
  `medians: estimate ${median(rounds.map((r) => median(r.estimateMs))).toFixed(0)} ms (target < 200 ms); ` +
    `event.list p99 during/idle ${median(rounds.map((r) => r.during.p99 / r.idle.p99)).toFixed(2)}x (target <= 2x); ` +
    `achieved rate ${median(rounds.map((r) => r.achievedRate)).toFixed(1)}/s of ${RATE}/s`,
);
