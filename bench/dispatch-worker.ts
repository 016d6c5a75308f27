/**
 * One round of bench:dispatch in a fresh process, against the store and runtime packages of the
 * checkout given as the first argument. Prints one JSON line (WorkerResult).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const packagesRoot = process.argv[2]!;
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5000);
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LATENCY_RATE = 100;

const { Store } = (await import(pathToFileURL(path.join(packagesRoot, 'packages/store/src/index.ts')).href)) as typeof import('../packages/store/src/index');
const { Runtime } = (await import(pathToFileURL(path.join(packagesRoot, 'packages/runtime/src/index.ts')).href)) as typeof import('../packages/runtime/src/index');

const bundle = {
  name: 'dispatch-bench',
  version: '1',
  runtime: { max_attempts: 3, backoff_ms: 10, max_chain_depth: 4, lease_ms: 30_000, handler_timeout_ms: 5_000 },
  events: {
    work: { payload_schema: { type: 'object' }, subscribers: [{ type: 'node', id: 'noop' }] },
    'work.done': { payload_schema: { type: 'object' }, subscribers: [] },
  },
  nodes: { noop: { kind: 'transform', emit: 'work.done' } },
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-dispatch-'));
const bundlePath = path.join(dir, 'bundle.json');
fs.writeFileSync(bundlePath, JSON.stringify(bundle));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

// Throughput: a backlog published with the dispatcher stopped, then drained.
// BENCH_DATABASE_URL (an admin URL): the same measurement on PostgreSQL, in a fresh database.
async function freshPostgresDatabase(adminUrl: string): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `sb_bench_${process.pid}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`create database "${name}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
const databaseUrl = process.env.BENCH_DATABASE_URL ? await freshPostgresDatabase(process.env.BENCH_DATABASE_URL) : undefined;
const store = await Store.open(databaseUrl ? { databaseUrl } : { dataDir: path.join(dir, 'data') });
const runtime = await Runtime.boot({ store, bundlePath, autoStart: false, dispatcher: { concurrency: 32, pollMs: 1 } });
for (let i = 0; i < DELIVERIES; i += 100) {
  await Promise.all(Array.from({ length: Math.min(100, DELIVERIES - i) }, (_, j) => runtime.publish({ event_name: 'work', payload: { n: i + j } })));
}
const started = performance.now();
runtime.start();
await runtime.waitForIdle(300_000);
const deliveriesPerSecond = DELIVERIES / ((performance.now() - started) / 1000);

// Latency: a steady 100 publishes/s with the dispatcher running.
const ids: string[] = [];
const until = performance.now() + LATENCY_SECONDS * 1000;
let next = performance.now();
while (performance.now() < until) {
  ids.push((await runtime.publish({ event_name: 'work', payload: { latency: true } })).event_id);
  next += 1000 / LATENCY_RATE;
  await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
}
await runtime.waitForIdle(60_000);
// The Kysely instance behind the store: private since the store owns every statement, but this
// worker also runs against older checkouts (BENCH_BEFORE_ROOT), so not through store/testing.
const rows = await store['db']
  .selectFrom('deliveries')
  .innerJoin('events', 'events.event_id', 'deliveries.event_id')
  .select(['events.created_at as published', 'deliveries.updated_at as delivered'])
  .where('deliveries.event_id', 'in', ids)
  .execute();
const latencies = rows.map((r) => Date.parse(r.delivered) - Date.parse(r.published)).sort((a, b) => a - b);
await runtime.stop();
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
if (databaseUrl) {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await admin.connect();
  const { dropDatabase } = await import('../scripts/test-postgres.mjs');
  await dropDatabase(admin, new URL(databaseUrl).pathname.slice(1));
  await admin.end();
}
console.log(JSON.stringify({ deliveriesPerSecond, latencyP50: percentile(latencies, 50), latencyP99: percentile(latencies, 99), published: ids.length }));
