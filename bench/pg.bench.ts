/**
 * npm run bench:pg: issue #10's targets for several server processes ("servers") on one PostgreSQL
 * database, each beside the same figure on SQLite (one server, the embedded default) measured in the
 * same run: real servers as fresh processes, the two engines alternating round by round (the order
 * flips every round), the load average per round, then medians, ratios and a summary table. Only
 * ratios taken in one run mean anything on a shared machine.
 *
 * Per round and engine, on a fresh database (PostgreSQL: a new database, template0, C collation,
 * dropped after; SQLite: a new folder), with 2 servers on PostgreSQL and 1 on SQLite:
 *   drain      BENCH_DELIVERIES (20,000) publishes queued before the servers start, not yet due; once
 *              every server is up they are made due at once: deliveries claimed, run by a no-op
 *              server (a transform emitting an event nobody subscribes to) and completed, per second,
 *              from the first completion to the last (the completions' own timestamps). Before
 *              them, BENCH_WARMUP_DELIVERIES (10,000) more, queued with them, are drained the same
 *              way untimed (their figure is printed per round, without a verdict).
 *   latency    100 publishes/s through server A's HTTP API for BENCH_SECONDS (5), after
 *              BENCH_WARMUP_SECONDS (30) of the same untimed (printed per round): from the publish
 *              call's start (here) to the handler's outcome timestamp (the delivery's updated_at,
 *              stamped by whichever server ran it as it applies the handler's result): an upper
 *              bound of publish-to-handler-start.
 *              On PostgreSQL also the claim path alone: the same rate written by a runtime in this
 *              process that runs no dispatcher, so each delivery waits for a server's claim (printed
 *              per round; not a target row).
 *   change     a WebSocket on server B holding a heartbeat subscription; BENCH_CHANGE_SAMPLES (50)
 *              publishes through server A, 200 ms apart: time from the publish call's start to B's
 *              `runtime.changed` naming events, and to B's event.list showing the event (polled
 *              every 10 ms). On SQLite both are the one server.
 *   publish    durable event.publish over HTTP for BENCH_SECONDS, autocannon at 64 connections in
 *              all, split evenly across the servers' ports, after BENCH_HTTP_WARMUP_SECONDS (5) of
 *              the same untimed (printed per round). Also, as a third contender in the same
 *              rounds, the tree at BENCH_DATAPATH_REF (fe3e12b, the end of the data-path issue #9,
 *              whose single-node SQLite figure is issue #10's publish target) on SQLite: a git
 *              worktree of that commit with this checkout's node_modules linked in, a fresh folder
 *              per round, the same load; the events it stored are counted after each round.
 *              Before round 1 the load generator (in this process) runs 3 s untimed against a
 *              server of its own, so that no side is measured with its JIT still cold.
 * And per round, on one database of BENCH_EVENTS (1,000,000) events per engine, filled once
 * (concurrently, before the rounds) and served by one server: event.list 50-row pages, one filter
 * at a time, page 1 and page 100, p99 over BENCH_LIST_REQUESTS (300) reads after 100 untimed ones,
 * from the store layer (in this process) and over HTTP at 1 connection (each request timed by a
 * client process of its own, bench/list-client.ts, one per server: on the wire, as wrk times a
 * request, and, for comparison, through Node's http client).
 *
 * Environment: BENCH_DATABASE_URL (a PostgreSQL role that may create databases; default: the
 * local test cluster, scripts/test-postgres.mjs), BENCH_ROUNDS (3), BENCH_SECONDS (5),
 * BENCH_DELIVERIES, BENCH_WARMUP_DELIVERIES, BENCH_WARMUP_SECONDS and BENCH_HTTP_WARMUP_SECONDS
 * (0 for a cold start), BENCH_CHANGE_SAMPLES, BENCH_EVENTS, BENCH_LIST_REQUESTS, BENCH_SCENARIOS
 * (servers,list), BENCH_DIR (keep the filled SQLite store there and reuse it), BENCH_PG_DATABASE (name of a
 * PostgreSQL database to keep the filled events in and reuse), BENCH_DATAPATH_REF (the data-path
 * baseline's commit; empty to leave it out).
 *
 * This file runs the rounds and prints the summary; each scenario is a module of bench/pg/
 * (bench/README.md maps them).
 */
import os from 'node:os';
import { median, loadAverage } from './rounds';
import { serversRound, datapathRound, datapathTree, type ServersRound } from './pg/servers';
import { listRound, listTargets, type ListFigures, type ListLayer } from './pg/list';
import { changedUnavailable } from './pg/change';
import { warmLoadGenerator, type Publishes } from './pg/publishes';
import { adminUrl, asAdmin, cleanUp } from './pg/resources';
import { printBeforeAfter, printSummary, type Row } from './pg/summary';
import { BEFORE_ROOT, DATAPATH_REF, ENGINES, HTTP_CONNECTIONS, ROUNDS, SCENARIOS, SECONDS, WARMUP_DELIVERIES, WARMUP_SECONDS, count, type Engine } from './pg/settings';

async function main(): Promise<void> {
  const version = await asAdmin(async (c) => (await c.query('show server_version')).rows[0].server_version as string);
  const shownUrl = new URL(adminUrl);
  if (shownUrl.password) shownUrl.password = '***';
  console.log(
    `bench:pg: PostgreSQL ${version} at ${shownUrl}, ${ROUNDS} rounds, ${SECONDS} s per measurement, ${SCENARIOS.join(',')}, node ${process.version}, ${os.cpus().length} cpus, load ${loadAverage()}` +
      (BEFORE_ROOT ? `; before: ${BEFORE_ROOT} on PostgreSQL beside this checkout` : ''),
  );
  const listTargetsReady = SCENARIOS.includes('list') ? await listTargets() : [];
  const nodes: Record<Engine, ServersRound[]> = { postgres: [], sqlite: [] };
  // BENCH_BEFORE_ROOT: a checkout of an earlier commit (with node_modules) whose PostgreSQL servers
  // run the same server scenarios in the same rounds, next to this checkout's, the order flipping.
  const beforeNodes: ServersRound[] = [];
  const datapath: Publishes[] = [];
  const tree = SCENARIOS.includes('servers') && DATAPATH_REF ? datapathTree(DATAPATH_REF) : undefined;
  const list: ListFigures = new Map();
  if (SCENARIOS.includes('servers')) console.log(`  load generator warmed up (untimed): autocannon ${HTTP_CONNECTIONS}c for 3 s against a server in this process, ${count(await warmLoadGenerator())} requests/s`);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? ENGINES : [...ENGINES].reverse();
    if (tree && round % 2 === 0) datapath.push(await datapathRound(tree, round));
    if (SCENARIOS.includes('servers')) {
      for (const engine of order) {
        const beforeFirst = BEFORE_ROOT !== undefined && engine === 'postgres' && round % 2 === 0;
        if (beforeFirst) beforeNodes.push(await serversRound(engine, round, BEFORE_ROOT));
        nodes[engine].push(await serversRound(engine, round));
        if (BEFORE_ROOT !== undefined && engine === 'postgres' && !beforeFirst) beforeNodes.push(await serversRound(engine, round, BEFORE_ROOT));
      }
    }
    if (tree && round % 2 === 1) datapath.push(await datapathRound(tree, round));
    for (const engine of order) {
      const target = listTargetsReady.find((t) => t.engine === engine);
      if (target) await listRound(target, round, list);
    }
  }
  for (const t of listTargetsReady) await t.store.close();

  const rows: Row[] = [];
  const med = (engine: Engine, pick: (r: ServersRound) => number | undefined) => {
    const xs = nodes[engine].map(pick).filter((x): x is number => x !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  const both = (pick: (r: ServersRound) => number | undefined) => ({ postgres: med('postgres', pick), sqlite: med('sqlite', pick) });
  if (SCENARIOS.includes('servers')) {
    const drain = both((r) => r.drain.perSecond);
    rows.push({ target: 'deliveries drained >= 5,000/s (2 servers; sqlite 1)', ...drain, unit: '/s', met: drain.postgres === undefined ? undefined : drain.postgres >= 5000 });
    if (WARMUP_DELIVERIES > 0) rows.push({ target: `  untimed: first ${count(WARMUP_DELIVERIES)} drained after start`, ...both((r) => r.coldDrain?.perSecond), unit: '/s', met: undefined });
    const p50 = both((r) => r.latency.p50);
    rows.push({ target: 'publish call -> handler p50 <= 5 ms, 100/s via A', ...p50, unit: 'ms', met: p50.postgres === undefined ? undefined : p50.postgres <= 5 });
    const p99 = both((r) => r.latency.p99);
    rows.push({ target: 'publish call -> handler p99 <= 25 ms', ...p99, unit: 'ms', met: p99.postgres === undefined ? undefined : p99.postgres <= 25 });
    if (WARMUP_SECONDS > 0) {
      rows.push({ target: `  untimed: first ${WARMUP_SECONDS} s after the drain, p50`, ...both((r) => r.coldLatency?.p50), unit: 'ms', met: undefined });
      rows.push({ target: `  untimed: first ${WARMUP_SECONDS} s after the drain, p99`, ...both((r) => r.coldLatency?.p99), unit: 'ms', met: undefined });
    }
    const publishes = both((r) => r.publishes.rps);
    rows.push({
      target: `http event.publish ${HTTP_CONNECTIONS}c split over the servers >= sqlite`,
      ...publishes,
      unit: '/s',
      met: publishes.postgres === undefined || publishes.sqlite === undefined ? undefined : publishes.postgres >= publishes.sqlite,
    });
    if (datapath.length) {
      const baseline = median(datapath.map((p) => p.rps));
      rows.push({
        target: `http event.publish ${HTTP_CONNECTIONS}c >= sqlite at ${DATAPATH_REF} (data-path end)`,
        postgres: publishes.postgres,
        sqlite: baseline,
        unit: '/s',
        met: publishes.postgres === undefined ? undefined : publishes.postgres >= baseline,
      });
    }
    const changed = both((r) => r.change.changed?.p99);
    rows.push({ target: 'change on B: runtime.changed p99 <= 250 ms', ...changed, unit: 'ms', met: changed.postgres === undefined ? undefined : changed.postgres <= 250 });
    const listed = both((r) => r.change.listed.p99);
    rows.push({ target: 'change on B: event.list (10 ms poll) p99 <= 250 ms', ...listed, unit: 'ms', met: listed.postgres === undefined ? undefined : listed.postgres <= 250 });
  }
  for (const [key, f] of list) {
    const labels: Record<ListLayer, string> = { store: 'store p99 <= 10 ms', http: 'http 1c p99 <= 10 ms', node: "Node's http client p99" };
    for (const layer of ['store', 'http', 'node'] as const) {
      const pgP99 = f.postgres[layer].length ? median(f.postgres[layer]) : undefined;
      const sqliteP99 = f.sqlite[layer].length ? median(f.sqlite[layer]) : undefined;
      rows.push({
        target: `event.list ${key}, ${labels[layer]}`,
        postgres: pgP99,
        sqlite: sqliteP99,
        unit: 'ms',
        // Node's client is shown for comparison with earlier runs; the target is the server's answer time.
        met: pgP99 === undefined || layer === 'node' ? undefined : pgP99 <= 10,
      });
    }
  }
  printSummary(rows);
  if (beforeNodes.length) printBeforeAfter(nodes.postgres, beforeNodes);
  for (const [engine, why] of changedUnavailable) console.log(`runtime.changed on ${engine}: ${why}.`);
  if (SCENARIOS.includes('servers')) console.log(
    'publish call -> handler: from the publish call\'s start here to the delivery\'s outcome timestamp on the server that ran it (an upper bound of handler start). ' +
      'Drain: deliveries / (last completion - first completion). Change: from the publish call\'s start to the notification, or to the first event.list answer showing the event; ' +
      'on SQLite, A and B are its one server.',
  );
  if (list.size > 0) console.log(
    "event.list http 1c: from writing the request on a keep-alive socket to reading the answer's last byte, as wrk and autocannon time it (each answer checked after its timed span). " +
      "Node's http client: the same calls through node:http to the parsed answer (the figure bench:pg reported before); it adds the client's own parsing and scheduling.",
  );
}

try {
  await main();
} finally {
  await cleanUp();
}
