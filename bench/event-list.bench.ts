/**
 * event.list and runtime.incidents at scale: fills a fresh store with BENCH_EVENTS events
 * (default 1,000,000) shaped like real traffic, then times the store repositories against the
 * same queries written by hand in raw SQL on the same database, first page and 100th page.
 *
 *   npm run bench:store                   full run
 *   BENCH_EVENTS=100000 npm run bench:store   quick run
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { Store, type BulkEvent, type EventFilter, type EventPosition } from '@switchboard/store';
import { databaseOf, sql } from '@switchboard/store/testing';
import { prng } from './prng';
import { incidentPageReads } from './incident-page-reads';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const PAGE = 50;
const DEEP_PAGE = 100;
const SPAN_MS = 30 * 24 * 3600_000;
const BATCH = 5000;

const rand = prng(1);

// Event catalog: name, share of traffic, subscribers.
const CATALOG: { name: string; weight: number; subscribers: string[] }[] = [
  { name: 'ticket.created', weight: 30, subscribers: ['triage-agent', 'open-ticket'] },
  { name: 'ticket.updated', weight: 25, subscribers: ['open-ticket'] },
  { name: 'refund.requested', weight: 12, subscribers: ['refund-approval', 'mark-refund-pending'] },
  { name: 'refund.approved', weight: 8, subscribers: ['pay-refund', 'mark-refund-approved'] },
  { name: 'refund.paid', weight: 7, subscribers: ['close-ticket', 'notify-agent'] },
  { name: 'ticket.closed', weight: 10, subscribers: [] },
  { name: 'survey.requested', weight: 5, subscribers: ['survey-mailer'] },
  { name: 'fraud.flagged', weight: 3, subscribers: ['risk-agent', 'fraud-review'] },
];
const TOTAL_WEIGHT = CATALOG.reduce((n, c) => n + c.weight, 0);
const REASONS = ['tool_error', 'timeout', 'output_unparseable', 'rate_limited', 'model_error'];
const HOT_ENTITIES = ['ticket-HOT-1', 'ticket-HOT-2', 'ticket-HOT-3'];
const HOT_RUNS = ['run-HOT-1', 'run-HOT-2'];

function pickEvent() {
  let r = rand() * TOTAL_WEIGHT;
  for (const c of CATALOG) if ((r -= c.weight) < 0) return c;
  return CATALOG[0]!;
}

const pad = (n: number) => n.toString(36).padStart(7, '0');

async function fill(store: Store): Promise<{ ms: number; deliveries: number; deadLetters: number; logs: number }> {
  const started = performance.now();
  // Bench fixture only: durability of the fill does not matter, its speed does. (On PostgreSQL
  // each batch is one transaction, so its few commits cost little anyway.)
  if (store.engine === 'sqlite') await sql`pragma synchronous = off`.execute(databaseOf(store));
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / EVENTS;
  let deliveries = 0;
  let deadLetters = 0;
  let logs = 0;
  for (let base = 0; base < EVENTS; base += BATCH) {
    const batch: BulkEvent[] = [];
    const logRows = [];
    for (let i = base; i < Math.min(EVENTS, base + BATCH); i++) {
      const t = Math.floor(start + i * step);
      const created_at = new Date(t).toISOString();
      const event_id = `evt_${pad(i)}`;
      const c = pickEvent();
      // Skew: a few hot entities and runs carry a large share; the rest are small.
      const hot = rand();
      const entity_id = hot < 0.15 ? HOT_ENTITIES[Math.floor(rand() * HOT_ENTITIES.length)]! : `ticket-${pad(Math.floor(i / 8))}`;
      const run_id = hot < 0.05 ? HOT_RUNS[Math.floor(rand() * HOT_RUNS.length)]! : `run_${pad(Math.floor(i / 6))}`;
      const failing = rand() < 0.02 ? Math.floor(rand() * Math.max(1, c.subscribers.length)) : -1;
      const eventDeliveries = c.subscribers.map((subscriber_id, j) => {
        const reason_code = j === failing ? REASONS[Math.floor(rand() * REASONS.length)]! : null;
        return {
          delivery_id: `dlv_${pad(i)}_${j}`,
          run_id,
          subscriber_id,
          subscriber_type: subscriber_id.endsWith('agent') ? 'agent' : 'node',
          status: reason_code ? 'failed' : 'delivered',
          attempts: reason_code ? 3 : 1,
          max_attempts: 3,
          next_attempt_at: created_at,
          lease_owner: null,
          lease_expires_at: null,
          last_error: reason_code ? `handler failed: ${reason_code}` : null,
          reason_code,
          session_id: null,
          created_at,
          updated_at: created_at,
        };
      });
      const failed = eventDeliveries.find((d) => d.reason_code);
      const eventDeadLetters =
        failed && rand() < 0.6
          ? [
              {
                dead_letter_id: `dl_${pad(i)}`,
                delivery_id: failed.delivery_id,
                run_id,
                subscriber_id: failed.subscriber_id,
                chain_depth: 0,
                created_at,
                failure_type: 'handler_error',
                retry_count: 2,
                error_message: failed.last_error,
                handler_node: failed.subscriber_id,
                reason_code: failed.reason_code,
              },
            ]
          : [];
      if (failed) {
        const component = failed.subscriber_id === 'pay-refund' ? 'mcp.payments' : failed.subscriber_id.endsWith('agent') ? `agent.${failed.subscriber_id}` : 'dispatcher';
        for (let a = 0; a < 2; a++) {
          logRows.push(logRow(`log_${pad(i)}_r${a}`, t + a, 'warn', 2, component === 'mcp.payments' ? 'mcp.payments' : 'dispatcher', component === 'mcp.payments' ? 'MCP_TOOL_ERROR' : 'DELIVERY_RETRY', `retrying ${failed.subscriber_id}`, event_id));
        }
        if (eventDeadLetters.length > 0) logRows.push(logRow(`log_${pad(i)}_d`, t + 2, 'error', 3, component, 'DEAD_LETTER', `dead-lettered ${failed.subscriber_id}`, event_id));
      }
      if (rand() < 0.1) logRows.push(logRow(`log_${pad(i)}_i`, t, 'info', 1, 'dispatcher', null, `delivered ${c.name}`, event_id));
      deliveries += eventDeliveries.length;
      deadLetters += eventDeadLetters.length;
      batch.push({
        event: {
          event_id,
          event_name: c.name,
          created_at,
          source: 'bench',
          payload: JSON.stringify({ ticket_id: entity_id, n: i, note: 'x'.repeat(40) }),
          entity_id,
          run_id,
          chain_depth: 0,
          parent_event_id: null,
          has_dead_letter: 0,
        },
        deliveries: eventDeliveries,
        dead_letters: eventDeadLetters,
      });
    }
    if (store.engine === 'postgres') await insertBatchOnPostgres(store, batch, logRows);
    else {
      await store.events.bulkInsert(batch);
      for (let j = 0; j < logRows.length; j += 1000) await databaseOf(store).insertInto('logs').values(logRows.slice(j, j + 1000)).execute();
    }
    logs += logRows.length;
    if ((base / BATCH) % 20 === 19) process.stderr.write(`  filled ${base + BATCH} events (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  // Log records went in straight, in bulk: build the incident rollup from them, as migration 005 does.
  await store.logs.rebuildIncidentRollup();
  if (store.engine === 'sqlite') await sql`pragma synchronous = full`.execute(databaseOf(store));
  // A long-lived PostgreSQL database has had autovacuum's statistics and visibility map; a
  // database filled a moment ago has neither, and its plans would be a cold start's.
  else await sql`vacuum analyze`.execute(databaseOf(store));
  return { ms: performance.now() - started, deliveries, deadLetters, logs };
}

/**
 * The same rows as bulkInsert and the log inserts, on PostgreSQL in four statements per batch:
 * each table's rows travel as one JSON parameter that the server expands
 * (json_populate_recordset), COPY-like, instead of thousands of bound parameters over many
 * round trips; deliveries and dead letters take their event's seq in the same statement.
 */
async function insertBatchOnPostgres(store: Store, batch: BulkEvent[], logRows: ReturnType<typeof logRow>[]): Promise<void> {
  const events = batch.map(({ event, dead_letters }) => ({ ...event, has_dead_letter: dead_letters.length > 0 || event.has_dead_letter ? 1 : 0 }));
  const deliveries = batch.flatMap(({ event, deliveries }) => deliveries.map((d) => ({ ...d, event_id: event.event_id })));
  const deadLetters = batch.flatMap(({ event, dead_letters }) => dead_letters.map((l) => ({ ...l, event_id: event.event_id })));
  const json = (rows: unknown[]) => sql`${JSON.stringify(rows)}::json`;
  await databaseOf(store).transaction().execute(async (trx) => {
    // In array order, so seq follows created_at as it does when events are published.
    await sql`insert into events (event_id, event_name, created_at, source, payload, entity_id, run_id, chain_depth, parent_event_id, has_dead_letter)
      select event_id, event_name, created_at, source, payload, entity_id, run_id, chain_depth, parent_event_id, has_dead_letter
      from json_populate_recordset(null::events, ${json(events)}) with ordinality r order by r.ordinality`.execute(trx);
    await sql`insert into deliveries (delivery_id, event_id, event_seq, event_created_at, run_id, subscriber_id, subscriber_type, status, attempts, max_attempts,
        next_attempt_at, lease_owner, lease_expires_at, last_error, reason_code, session_id, created_at, updated_at)
      select d.delivery_id, d.event_id, e.seq, e.created_at, d.run_id, d.subscriber_id, d.subscriber_type, d.status, d.attempts, d.max_attempts,
        d.next_attempt_at, d.lease_owner, d.lease_expires_at, d.last_error, d.reason_code, d.session_id, d.created_at, d.updated_at
      from json_populate_recordset(null::deliveries, ${json(deliveries)}) d join events e on e.event_id = d.event_id`.execute(trx);
    if (deadLetters.length > 0) {
      await sql`insert into dead_letters (dead_letter_id, event_id, event_seq, event_created_at, delivery_id, run_id, subscriber_id, chain_depth, created_at,
          failure_type, retry_count, error_message, handler_node, reason_code)
        select l.dead_letter_id, l.event_id, e.seq, e.created_at, l.delivery_id, l.run_id, l.subscriber_id, l.chain_depth, l.created_at,
          l.failure_type, l.retry_count, l.error_message, l.handler_node, l.reason_code
        from json_populate_recordset(null::dead_letters, ${json(deadLetters)}) l join events e on e.event_id = l.event_id`.execute(trx);
    }
    if (logRows.length > 0) {
      await sql`insert into logs (log_id, ts, level, level_rank, component, error_code, message, is_mcp, event_id, run_id, delivery_id, dead_letter_id, entity_id, session_id)
        select log_id, ts, level, level_rank, component, error_code, message, is_mcp, event_id, run_id, delivery_id, dead_letter_id, entity_id, session_id
        from json_populate_recordset(null::logs, ${json(logRows)}) with ordinality r order by r.ordinality`.execute(trx);
    }
  });
}

function logRow(log_id: string, t: number, level: string, level_rank: number, component: string, error_code: string | null, message: string, event_id: string) {
  return {
    log_id,
    ts: new Date(t).toISOString(),
    level,
    level_rank,
    component,
    error_code,
    message,
    is_mcp: component.startsWith('mcp.') ? 1 : 0,
    event_id,
    run_id: null,
    delivery_id: null,
    dead_letter_id: null,
    entity_id: null,
    session_id: null,
  };
}

/**
 * Times the store call and its raw SQL twin alternately, so machine noise (other processes, GC)
 * falls on both sides alike.
 */
async function timePair(
  storeFn: () => Promise<unknown>,
  rawFn: () => unknown,
): Promise<{ store: { p50: number; p99: number }; raw: { p50: number; p99: number } }> {
  for (let i = 0; i < 20; i++) {
    await storeFn();
    rawFn();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    let t0 = performance.now();
    await storeFn();
    a.push(performance.now() - t0);
    t0 = performance.now();
    rawFn();
    b.push(performance.now() - t0);
  }
  const stats = (samples: number[]) => {
    samples.sort((x, y) => x - y);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
    return { p50: at(0.5), p99: at(0.99) };
  };
  return { store: stats(a), raw: stats(b) };
}

/** Raw SQL twin of the repository's page query for one filter, plus the two nesting queries. */
function rawPage(raw: BetterSqlite3.Database, f: EventFilter) {
  const cond: string[] = [];
  const args: unknown[] = [];
  let from = 'events e';
  let order = 'e.created_at desc, e.seq desc';
  let ca = 'e.created_at';
  let sq = 'e.seq';
  if (f.subscriber_id) {
    from = 'deliveries d join events e on e.seq = d.event_seq';
    cond.push('d.subscriber_id = ?');
    args.push(f.subscriber_id);
    ca = 'd.event_created_at';
    sq = 'd.event_seq';
    order = 'd.event_created_at desc, d.event_seq desc';
  }
  if (f.entity_id) {
    cond.push('e.entity_id = ?');
    args.push(f.entity_id);
  }
  if (f.event_name) {
    cond.push('e.event_name = ?');
    args.push(f.event_name);
  }
  if (f.run_id) {
    cond.push('e.run_id = ?');
    args.push(f.run_id);
  }
  if (f.has_dead_letter === true) cond.push('e.has_dead_letter = 1');
  if (f.has_dead_letter === false) cond.push('e.has_dead_letter = 0');
  if (f.since) {
    cond.push(`${ca} >= ?`);
    args.push(f.since);
  }
  if (f.until) {
    cond.push(`${ca} < ?`);
    args.push(f.until);
  }
  const keyset = (c: string, s: string) => `${c} <= ? and (${c} < ? or ${s} < ?)`;
  let first: BetterSqlite3.Statement;
  let after: BetterSqlite3.Statement;
  if (f.reason_code) {
    const branch = (t: string, withKeyset: boolean) =>
      `select ${t}.event_created_at ca, ${t}.event_seq sq from ${t === 'd' ? 'deliveries' : 'dead_letters'} ${t} where ${t}.reason_code = ?${withKeyset ? ` and ${keyset(`${t}.event_created_at`, `${t}.event_seq`)}` : ''}`;
    const q = (k: boolean) =>
      `select e.* from (${branch('d', k)} union ${branch('l', k)} order by ca desc, sq desc limit ?) k join events e on e.seq = k.sq order by e.created_at desc, e.seq desc`;
    first = raw.prepare(q(false));
    after = raw.prepare(q(true));
    const code = f.reason_code;
    return {
      first: () => nest(raw, first.all(code, code, PAGE + 1) as any[]),
      after: (p: EventPosition) => nest(raw, after.all(code, p.created_at, p.created_at, p.seq, code, p.created_at, p.created_at, p.seq, PAGE + 1) as any[]),
    };
  }
  const where = (extra: string[]) => (cond.length + extra.length ? `where ${[...cond, ...extra].join(' and ')}` : '');
  first = raw.prepare(`select e.* from ${from} ${where([])} order by ${order} limit ?`);
  after = raw.prepare(`select e.* from ${from} ${where([keyset(ca, sq)])} order by ${order} limit ?`);
  return {
    first: () => nest(raw, first.all(...args, PAGE + 1) as any[]),
    after: (p: EventPosition) => nest(raw, after.all(...args, p.created_at, p.created_at, p.seq, PAGE + 1) as any[]),
  };
}

const nestStatements = new WeakMap<BetterSqlite3.Database, { d: BetterSqlite3.Statement; l: BetterSqlite3.Statement }>();
function nest(raw: BetterSqlite3.Database, rows: { event_id: string }[]) {
  let s = nestStatements.get(raw);
  if (!s) {
    const marks = Array.from({ length: PAGE }, () => '?').join(',');
    s = {
      d: raw.prepare(`select * from deliveries where event_id in (${marks}) order by created_at, delivery_id`),
      l: raw.prepare(`select * from dead_letters where event_id in (${marks}) order by created_at, dead_letter_id`),
    };
    nestStatements.set(raw, s);
  }
  const ids = rows.slice(0, PAGE).map((r) => r.event_id);
  while (ids.length < PAGE) ids.push('');
  return { rows, deliveries: s.d.all(...ids), deadLetters: s.l.all(...ids) };
}

/** Raw SQL over the records alone (no rollup): one grouped bucket query, then one UNION ALL of per-group samples. */
function rawIncidents(raw: BetterSqlite3.Database, mcpOnly: boolean) {
  const where = `level_rank >= 2 and ts >= ? and ts < ?${mcpOnly ? ' and is_mcp = 1' : ''}`;
  const sampleStatements = new Map<number, BetterSqlite3.Statement>();
  return (start: string, end: string) => {
    const t0 = Date.parse(start);
    const width = (Date.parse(end) - t0) / 24;
    const bounds = Array.from({ length: 23 }, (_, i) => new Date(Math.floor(t0 + width * (i + 1))).toISOString());
    const nested = (bs: string[], off: number): string => {
      if (bs.length === 0) return String(off);
      const m = Math.floor(bs.length / 2);
      return `case when ts < '${bs[m]}' then ${nested(bs.slice(0, m), off)} else ${nested(bs.slice(m + 1), off + m + 1)} end`;
    };
    const rows = raw
      .prepare(
        `select component, error_code, bucket, count(*) n, min(ts) first_seen, max(ts) last_seen, max(level_rank) level_rank from (select component, error_code, ts, level_rank, ${nested(bounds, 0)} bucket from logs where ${where}) group by component, error_code, bucket`,
      )
      .all(start, end) as { component: string; error_code: string | null; last_seen: string }[];
    const groups = new Map<string, { component: string; error_code: string | null; last_seen: string }>();
    for (const r of rows) {
      const k = `${r.component}|${r.error_code}`;
      const g = groups.get(k);
      if (!g || r.last_seen > g.last_seen) groups.set(k, r);
    }
    const page = [...groups.values()].sort((a, b) => (a.last_seen < b.last_seen ? 1 : -1)).slice(0, PAGE);
    if (page.length === 0) return { rows };
    let st = sampleStatements.get(page.length);
    if (!st) {
      const branch = `select * from (select component, error_code, log_id, message, ts, seq from logs where ${where} and component = ? and error_code is ? order by ts desc, seq desc limit 5)`;
      st = raw.prepare(page.map(() => branch).join(' union all '));
      sampleStatements.set(page.length, st);
    }
    const samples = st.all(...page.flatMap((g) => [start, end, g.component, g.error_code]));
    return { rows, samples };
  };
}

function fmt(n: number | undefined): string {
  return n === undefined ? '-' : n.toFixed(2);
}

/** Fills in a child process, so the fill's garbage and heap growth do not sit under the timings. */
function fillInChild(dir: string): Promise<Awaited<ReturnType<typeof fill>>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--fill', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`fill exited with ${code}`))));
  });
}

async function main() {
  if (process.argv[2] === '--fill') {
    // A folder (SQLite), or a PostgreSQL database's URL (bench:pg fills one of each).
    const target = process.argv[3]!;
    const store = await Store.open(/^postgres(ql)?:\/\//.test(target) ? { databaseUrl: target } : { dataDir: target });
    const filled = await fill(store);
    await store.close();
    process.stdout.write(JSON.stringify(filled));
    return;
  }
  // BENCH_DIR keeps the filled store for another run (filled once, reused while it exists).
  const keep = process.env.BENCH_DIR;
  const reuse = keep !== undefined && fs.existsSync(keep) && fs.readdirSync(keep).length > 0;
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-'));
  console.log(`store: ${dir}${reuse ? ' (reused)' : ''}  events: ${EVENTS.toLocaleString('en')}  iterations per case: ${ITERATIONS}  cores: ${os.cpus().length}  load: ${os.loadavg()[0]!.toFixed(2)}`);
  const filled = reuse ? undefined : await fillInChild(dir);
  const store = await Store.open({ dataDir: dir });
  if (filled) console.log(
    `filled in ${(filled.ms / 1000).toFixed(1)} s: ${EVENTS.toLocaleString('en')} events, ${filled.deliveries.toLocaleString('en')} deliveries, ` +
      `${filled.deadLetters.toLocaleString('en')} dead letters, ${filled.logs.toLocaleString('en')} log records`,
  );
  const raw = new BetterSqlite3(store.location, { readonly: true });
  raw.pragma('cache_size = -65536');

  const end = Date.now();
  const day = 24 * 3600_000;
  const cases: [string, EventFilter][] = [
    ['no filter', {}],
    ['entity_id (hot)', { entity_id: HOT_ENTITIES[0] }],
    ['entity_id (small)', { entity_id: `ticket-${pad(Math.floor(EVENTS / 16))}` }],
    ['event_name', { event_name: 'refund.paid' }],
    ['run_id (hot)', { run_id: HOT_RUNS[0] }],
    ['has_dead_letter=true', { has_dead_letter: true }],
    ['has_dead_letter=false', { has_dead_letter: false }],
    ['subscriber_id', { subscriber_id: 'pay-refund' }],
    ['reason_code', { reason_code: 'timeout' }],
    ['since..until (7 days)', { since: new Date(end - 20 * day).toISOString(), until: new Date(end - 13 * day).toISOString() }],
    ['since only (last 20 days)', { since: new Date(end - 20 * day).toISOString() }],
    ['entity_id + time range', { entity_id: HOT_ENTITIES[1], since: new Date(end - 20 * day).toISOString(), until: new Date(end - 5 * day).toISOString() }],
    ['event_name + subscriber_id', { event_name: 'refund.approved', subscriber_id: 'pay-refund' }],
  ];

  const table: string[][] = [];
  const verdicts: string[] = [];
  for (const [name, filter] of cases) {
    // Position at the start of page 100, found by walking the pages once.
    let position: EventPosition | undefined;
    let pages = 1;
    let page = await store.events.page(filter, { limit: PAGE });
    while (page.next && pages < DEEP_PAGE) {
      position = page.next;
      page = await store.events.page(filter, { limit: PAGE, after: position });
      pages++;
    }
    const deep = pages === DEEP_PAGE ? position : undefined;
    const rawQ = rawPage(raw, filter);
    const { store: s1, raw: r1 } = await timePair(() => store.events.page(filter, { limit: PAGE }), () => rawQ.first());
    const deepPair = deep ? await timePair(() => store.events.page(filter, { limit: PAGE, after: deep }), () => rawQ.after(deep)) : undefined;
    const s100 = deepPair?.store;
    const r100 = deepPair?.raw;
    // Same rows both ways (sanity check of the raw twin).
    const check = await store.events.page(filter, { limit: PAGE, after: deep });
    const rawRows = (deep ? rawQ.after(deep) : rawQ.first()).rows.slice(0, PAGE).map((r: any) => r.event_id);
    if (JSON.stringify(check.events.map((e) => e.event_id)) !== JSON.stringify(rawRows)) throw new Error(`raw twin disagrees for ${name}`);
    table.push([`event.list ${name}`, fmt(s1.p50), fmt(s1.p99), fmt(r1.p50), fmt(r1.p99), fmt(s100?.p50), fmt(s100?.p99), fmt(r100?.p50), fmt(r100?.p99)]);
    if (s1.p99 >= 5 || (s100 && s100.p99 >= 5)) verdicts.push(`${name}: store p99 over 5 ms`);
    if (s1.p99 > 10 * r1.p99 || (s100 && r100 && s100.p99 > 10 * r100.p99)) verdicts.push(`${name}: store p99 more than 10x raw`);
    if (s100 && s100.p99 > Math.max(s1.p99 * 1.5, s1.p99 + 0.5)) verdicts.push(`${name}: page 100 slower than page 1`);
  }

  const incidentReads = (window: { windowStart: string; windowEnd: string; mcpOnly: boolean }) => incidentPageReads(store, window, PAGE);
  for (const [name, mcpOnly, hours] of [
    ['runtime.incidents 24 h', false, 24],
    ['runtime.incidents 24 h mcp_only', true, 24],
    ['runtime.incidents 7 days', false, 168],
    ['runtime.incidents 30 days', false, 720],
  ] as const) {
    const windowEnd = new Date(end + 1).toISOString();
    const windowStart = new Date(end + 1 - hours * 3600_000).toISOString();
    const rawQ = rawIncidents(raw, mcpOnly);
    const { store: s, raw: r } = await timePair(
      () => incidentReads({ windowStart, windowEnd, mcpOnly }),
      () => rawQ(windowStart, windowEnd),
    );
    table.push([name, fmt(s.p50), fmt(s.p99), fmt(r.p50), fmt(r.p99), '-', '-', '-', '-']);
    if (s.p99 >= 5) verdicts.push(`${name}: store p99 over 5 ms`);
  }

  const header = ['case (ms)', 'store p50', 'store p99', 'raw p50', 'raw p99', 'p100 store p50', 'p100 store p99', 'p100 raw p50', 'p100 raw p99'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log('\n' + line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of table) console.log(line(r));
  console.log(verdicts.length === 0 ? '\nall targets met (p99 < 5 ms, within 10x raw SQL, page 100 no slower than page 1)' : `\ntargets missed:\n  ${verdicts.join('\n  ')}`);

  raw.close();
  await store.close();
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
}

await main();
