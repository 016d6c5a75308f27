/**
 * npm run bench:retention: a retention pass over a large store while publishes arrive at a steady
 * rate, on SQLite and on PostgreSQL. Per engine: a fresh store filled through the store layer with
 * BENCH_EVENTS events (runs of EVENTS_PER_RUN events, each event with a delivered delivery), 90%
 * of the runs settled 60 days ago and 10% today; a real server on it; then
 *
 *   idle     health.ping one at a time and event.publish at BENCH_PUBLISH_RATE/s for BENCH_SECONDS
 *   prune    the same load while runtime.retention_run {dry_run: false} removes the old 90%
 *
 * and prints health.ping p99 and publish p99 idle and during the pass (target: during <= 2x idle),
 * rows removed per second, and the store's size before and after (SQLite: the file's pages;
 * PostgreSQL: its tables and indexes).
 *
 * Environment: BENCH_EVENTS (1,000,000), BENCH_ENGINES (sqlite,postgres), BENCH_SECONDS (10),
 * BENCH_PUBLISH_RATE (50), BENCH_RETENTION_RATE (rows/s the pass may remove; 5,000, the server default),
 * BENCH_BATCH (runs per batch, 200), BENCH_DATABASE_URL (a PostgreSQL role that may create
 * databases; default: the local test cluster).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresAdmin, testPostgres } from '@switchboard/testkit';
import { Store, type StorageReading } from '@switchboard/store';
import { databaseOf } from '@switchboard/store/testing';
import { loadAverage, startProcess, stop } from './rounds';

const root = fileURLToPath(new URL('../', import.meta.url));
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',').map((e) => e.trim());
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PUBLISH_RATE = Number(process.env.BENCH_PUBLISH_RATE ?? 50);
const RETENTION_RATE = Number(process.env.BENCH_RETENTION_RATE ?? 5_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 200);
const EVENTS_PER_RUN = 4;
const OLD_SHARE = 0.9;
const TOKEN = 'sbk_bench_retention_token_00001';
/** Rows per INSERT statement: deliveries have 18 columns, inside both engines' parameter limits. */
const ROWS_PER_STATEMENT = 500;
const DAY_MS = 86_400_000;

interface Latencies {
  ping: number[];
  publish: number[];
  /** When each publish in `publish` was sent, ms after the phase began. */
  publishAt: number[];
  errors: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** One JSON-RPC call over node:http (no client timeout: a pass answers when it has finished). */
function call(port: number, method: string, params: unknown): Promise<any> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/rpc', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown; error?: { message: string } };
          if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
          else resolve(answer.result);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** health.ping one at a time and publishes on a fixed schedule, until `until` resolves. */
async function underLoad(port: number, until: Promise<unknown>): Promise<Latencies> {
  const out: Latencies = { ping: [], publish: [], publishAt: [], errors: 0 };
  const began = performance.now();
  let done = false;
  void until.finally(() => (done = true));
  const pings = (async () => {
    while (!done) {
      const t = performance.now();
      await call(port, 'health.ping', {}).then(
        () => out.ping.push(performance.now() - t),
        () => (out.errors += 1),
      );
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const inFlight: Promise<void>[] = [];
  let n = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    n += 1;
    inFlight.push(
      call(port, 'event.publish', { event_name: 'survey.requested', payload: { ticket_id: `T-BENCH-${process.pid}-${n}` } }).then(
        () => {
          out.publish.push(performance.now() - t);
          out.publishAt.push(t - began);
        },
        () => void (out.errors += 1),
      ),
    );
  }, 1000 / PUBLISH_RATE);
  await until.catch(() => undefined);
  clearInterval(timer);
  await pings;
  await Promise.all(inFlight);
  return out;
}

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Runs of EVENTS_PER_RUN chained events, each with a delivered delivery; the first OLD_SHARE settled 60 days ago. */
async function fill(store: Store): Promise<void> {
  const db = databaseOf(store);
  const runs = Math.ceil(EVENTS / EVENTS_PER_RUN);
  const oldRuns = Math.floor(runs * OLD_SHARE);
  const now = Date.now();
  const started = performance.now();
  const RUNS_PER_TX = 2_000;
  for (let from = 0; from < runs; from += RUNS_PER_TX) {
    await db.transaction().execute(async (trx) => {
      const runRows = [];
      const eventRows = [];
      for (let r = from; r < Math.min(runs, from + RUNS_PER_TX); r++) {
        const at = new Date(r < oldRuns ? now - 60 * DAY_MS + r : now - 3_600_000 + (r - oldRuns)).toISOString();
        const runId = `run_bench_${String(r).padStart(8, '0')}`;
        runRows.push({ run_id: runId, status: 'completed', root_event_id: `evt_bench_${r}_0`, event_name: 'survey.requested', entity_id: null, bundle_fingerprint: 'bench', created_at: at, settled_at: at });
        for (let e = 0; e < EVENTS_PER_RUN; e++) {
          eventRows.push({
            event_id: `evt_bench_${r}_${e}`,
            event_name: 'survey.requested',
            created_at: at,
            source: 'bench',
            payload: JSON.stringify({ ticket_id: `T-${r}`, step: e, note: 'retention bench payload, about the size of a small ticket event' }),
            entity_id: `ticket-${r}`,
            run_id: runId,
            chain_depth: e,
            parent_event_id: e === 0 ? null : `evt_bench_${r}_${e - 1}`,
            has_dead_letter: 0,
          });
        }
      }
      for (let i = 0; i < runRows.length; i += ROWS_PER_STATEMENT) await trx.insertInto('runs').values(runRows.slice(i, i + ROWS_PER_STATEMENT)).execute();
      for (let i = 0; i < eventRows.length; i += ROWS_PER_STATEMENT) {
        const chunk = eventRows.slice(i, i + ROWS_PER_STATEMENT);
        const seqs = await trx.insertInto('events').values(chunk).returning(['seq', 'event_id']).execute();
        await trx
          .insertInto('deliveries')
          .values(
            chunk.map((ev, k) => ({
              delivery_id: `dlv_${ev.event_id}`,
              event_id: ev.event_id,
              event_seq: Number(seqs[k]!.seq),
              event_created_at: ev.created_at,
              run_id: ev.run_id,
              subscriber_id: 'bench-node',
              subscriber_type: 'node',
              status: 'delivered',
              attempts: 1,
              max_attempts: 3,
              next_attempt_at: ev.created_at,
              lease_owner: null,
              lease_expires_at: null,
              last_error: null,
              reason_code: null,
              session_id: null,
              created_at: ev.created_at,
              updated_at: ev.created_at,
            })),
          )
          .execute();
      }
    });
    if ((from / RUNS_PER_TX) % 25 === 0) process.stdout.write(`\r  filled ${(Math.min(runs, from + RUNS_PER_TX) * EVENTS_PER_RUN).toLocaleString('en')} events`);
  }
  process.stdout.write(`\r  filled ${EVENTS.toLocaleString('en')} events (${runs.toLocaleString('en')} runs) in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

interface EngineResult {
  engine: string;
  idle: Latencies;
  during: Latencies;
  removedRows: number;
  removedRuns: number;
  seconds: number;
  before: StorageReading;
  after: StorageReading;
  fileBefore?: number;
  fileAfter?: number;
}

async function runEngine(engine: string): Promise<EngineResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-retention-'));
  let databaseUrl: string | undefined;
  let admin: PostgresAdmin | undefined;
  const dbName = `sb_bench_retention_${process.pid}`;
  if (engine === 'postgres') {
    const adminUrl = process.env.BENCH_DATABASE_URL ?? testPostgres().url;
    if (!adminUrl) throw new Error('PostgreSQL: set BENCH_DATABASE_URL to a role that may create databases');
    admin = new PostgresAdmin(adminUrl);
    databaseUrl = await admin.create(dbName);
  }
  try {
    const store = await Store.open(databaseUrl ? { databaseUrl } : { dataDir: dir });
    await fill(store);
    await store.close();
    const dbFile = path.join(dir, 'switchboard.db');
    const fileSize = () => (engine === 'sqlite' ? fs.statSync(dbFile).size + (fs.existsSync(`${dbFile}-wal`) ? fs.statSync(`${dbFile}-wal`).size : 0) : undefined);

    const server = await startProcess(
      'apps/server/src/main.ts',
      {
        ...(databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : { SWITCHBOARD_DATA_DIR: dir }),
        SWITCHBOARD_TOKEN: TOKEN,
        SWITCHBOARD_DEMO: 'off',
        SWITCHBOARD_LOG_LEVEL: 'warn',
        SWITCHBOARD_RATE_LIMIT_PER_S: '100000000',
        // Only the pass this benchmark asks for.
        SWITCHBOARD_RETENTION_INTERVAL_S: String(7 * 86_400),
        SWITCHBOARD_RETENTION_MAX_ROWS_PER_S: String(RETENTION_RATE),
        SWITCHBOARD_RETENTION_BATCH_SIZE: String(BATCH),
      },
      root,
    );
    try {
      // Untimed: the server's first publishes and pings warm it up.
      await underLoad(server.port, new Promise((r) => setTimeout(r, 3_000)));
      const fileBefore = fileSize();
      console.log(`  idle ${SECONDS} s (load ${loadAverage()})`);
      const idle = await underLoad(server.port, new Promise((r) => setTimeout(r, SECONDS * 1000)));
      console.log(`  pass (load ${loadAverage()})`);
      const started = performance.now();
      const pass = call(server.port, 'runtime.retention_run', { dry_run: false });
      const during = await underLoad(server.port, pass);
      const result = (await pass) as { run: { removed: Record<string, number> }; storage_before: StorageReading & { free_bytes: number }; storage_after: StorageReading & { free_bytes: number } };
      const seconds = (performance.now() - started) / 1000;
      const removedRows = Object.values(result.run.removed).reduce((a, b) => a + b, 0);
      const reading = (s: { bytes: number; free_bytes: number; reclaim: StorageReading['reclaim'] }): StorageReading => ({ bytes: s.bytes, freeBytes: s.free_bytes, reclaim: s.reclaim });
      return { engine, idle, during, removedRows, removedRuns: result.run.removed.runs!, seconds, before: reading(result.storage_before as never), after: reading(result.storage_after as never), fileBefore, fileAfter: fileSize() };
    } finally {
      await stop(server.child);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    if (admin) await admin.drop(dbName).catch((err: Error) => console.error(`could not drop ${dbName}: ${err.message}`));
  }
}

console.log(
  `bench:retention: ${EVENTS.toLocaleString('en')} events (${OLD_SHARE * 100}% old), publishes at ${PUBLISH_RATE}/s, pass at most ${RETENTION_RATE.toLocaleString('en')} rows/s in batches of ${BATCH} runs, node ${process.version}, ${os.cpus().length} cpus`,
);
const results: EngineResult[] = [];
for (const engine of ENGINES) {
  console.log(`${engine}:`);
  results.push(await runEngine(engine));
}
console.log('\nengine    | ping p99 idle -> pass (x) | publish p99 idle -> pass (x) | removed rows (runs)   | rows/s  | size before -> after       | errors');
for (const r of results) {
  const ping = [p99(r.idle.ping), p99(r.during.ping)] as const;
  const publish = [p99(r.idle.publish), p99(r.during.publish)] as const;
  const size = r.fileBefore !== undefined ? `${mb(r.fileBefore)} -> ${mb(r.fileAfter!)} (file)` : `${mb(r.before.bytes)} -> ${mb(r.after.bytes)} (tables)`;
  const verdict = (x: number) => (x <= 2 ? 'met' : 'MISSED');
  console.log(
    [
      r.engine.padEnd(9),
      `${ms(ping[0])} -> ${ms(ping[1])} (${(ping[1] / ping[0]).toFixed(2)}x ${verdict(ping[1] / ping[0])})`.padEnd(25),
      `${ms(publish[0])} -> ${ms(publish[1])} (${(publish[1] / publish[0]).toFixed(2)}x ${verdict(publish[1] / publish[0])})`.padEnd(28),
      `${r.removedRows.toLocaleString('en')} (${r.removedRuns.toLocaleString('en')})`.padEnd(21),
      `${Math.round(r.removedRows / r.seconds).toLocaleString('en')}`.padEnd(7),
      size.padEnd(26),
      `${r.idle.errors + r.during.errors}`,
    ].join(' | '),
  );
  // Where in the pass the slow publishes were: p99 per tenth of its time (the deletes come first,
  // then the space given back).
  const tenths = Array.from({ length: 10 }, (_, i) => r.during.publish.filter((_, j) => Math.floor((r.during.publishAt[j]! / (r.seconds * 1000)) * 10) === i));
  console.log(`          publish p99 per tenth of the pass: ${tenths.map((t) => (t.length ? p99(t).toFixed(0) : '-')).join(' ')} ms`);
  console.log(`          pings ${r.idle.ping.length} idle, ${r.during.ping.length} during; publishes ${r.idle.publish.length} idle, ${r.during.publish.length} during; pass ${r.seconds.toFixed(1)} s; store layer ${mb(r.before.bytes)} -> ${mb(r.after.bytes)}, ${mb(r.after.freeBytes)} free`);
}
