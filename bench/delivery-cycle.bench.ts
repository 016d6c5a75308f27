/**
 * npm run bench:cycle: PostgreSQL's own CPU per delivery, split by statement, for the claim and
 * completion cycle as the store runs it today, beside a design where the claim lives in a narrow
 * queue table. Issue #41 asks for that CPU halved; this probe says which part of it a redesign of
 * the claim can reach before anything is built (bench/README.md, "Where PostgreSQL's CPU per
 * delivery goes").
 *
 * Per round and variant (alternating, the order flipped every round), on a fresh database with
 * bench:pg's backlog (BENCH_WARMUP_DELIVERIES + BENCH_DELIVERIES publishes, queued through this
 * checkout's runtime, then made due): one backend drains it the way two servers' dispatchers and
 * completions do, in batches of 64: the claim in its own transaction, then one transaction that
 * marks the batch delivered, inserts the emitted events, settles the runs and writes the change
 * row. The backend's CPU comes from /proc (so PostgreSQL must run on this machine), read around
 * each statement. No server runs: what is measured is PostgreSQL's work per delivery, nothing else.
 *
 * Variants:
 *   today   the statements of packages/store/src/engines/postgres/claim.ts (the claim through
 *           `claimable_deliveries`, `markDeliveredByArrays`) and of the completion's batch.
 *   queue   the claim in `delivery_queue (delivery_id, ready_at, lease_owner, attempts)`, one index
 *           on ready_at (a lease moves ready_at to its expiry, so expired leases and due rows are one
 *           walk); `deliveries` loses the due and leased indexes, its run index drops status, and
 *           the claim does not write it. Completion deletes the queue rows and marks the deliveries
 *           delivered, an update that no index sees, so PostgreSQL can keep it on its page (HOT)
 *           when the page has room: `BENCH_FILLFACTOR` (default 40) for deliveries, applied with a
 *           rewrite before the drain. Not built in the store: a lease would no longer be a delivery
 *           column, which every reader of `in_progress` sees.
 */
import fs from 'node:fs';
import pg from 'pg';
import { Store } from '@switchboard/store';
import { median, loadAverage } from './rounds';
import { cleanUp, createDatabase, dropDatabase } from './pg/resources';
import { packagesOf, queueBacklog } from './pg/cluster';
import { ROUNDS, root } from './pg/settings';

const BATCH = 64;
const FILLFACTOR = Number(process.env.BENCH_FILLFACTOR ?? 40);
const STEPS = ['claim', 'mark', 'events', 'settle', 'change', 'commit'] as const;
type Step = (typeof STEPS)[number];
type Variant = 'today' | 'queue';
interface Figures {
  deliveries: number;
  cpuPerDelivery: number;
  steps: Record<Step, number>;
  hotShare: number;
  load: string;
}

const iso = (ms = Date.now()) => new Date(ms).toISOString();

const todayClaim = `with picked as (select * from claimable_deliveries($1, $2, true)),
taken as (update deliveries d set status = 'in_progress', lease_owner = $3, lease_expires_at = $4, attempts = d.attempts + 1, updated_at = $1
  where d.delivery_id = any(array(select delivery_id from picked))
  returning d.delivery_id, d.event_id, d.run_id, d.attempts)
select taken.*, e.chain_depth from taken join picked on picked.delivery_id = taken.delivery_id
  cross join lateral (select * from events where events.event_id = taken.event_id limit 1) e`;
const todayMark = `update deliveries set status = 'delivered', lease_owner = null, lease_expires_at = null, updated_at = $1
  where delivery_id = any($2::text[]) and (delivery_id, attempts) in (select * from unnest($2::text[], $3::int[]))
    and lease_owner = $4 and status = 'in_progress'
  returning delivery_id`;

const queueClaim = `with picked as (select delivery_id from delivery_queue where ready_at <= $1 order by ready_at limit $2 for update skip locked),
taken as (update delivery_queue q set ready_at = $4, lease_owner = $3, attempts = q.attempts + 1
  where q.delivery_id = any(array(select delivery_id from picked)) returning q.delivery_id, q.attempts)
select taken.*, d.event_id, d.run_id, e.chain_depth from taken
  cross join lateral (select event_id, run_id from deliveries where deliveries.delivery_id = taken.delivery_id) d
  cross join lateral (select * from events where events.event_id = d.event_id limit 1) e`;
const queueMark = `with gone as (
    delete from delivery_queue where delivery_id = any($2::text[]) and (delivery_id, attempts) in (select * from unnest($2::text[], $3::int[])) and lease_owner = $4
    returning delivery_id, attempts)
  update deliveries d set status = 'delivered', attempts = gone.attempts, updated_at = $1 from gone where d.delivery_id = gone.delivery_id
  returning d.delivery_id`;

const emittedEvents = `insert into events (event_id, event_name, created_at, source, payload, entity_id, run_id, chain_depth, parent_event_id, has_dead_letter, replay_of_event_id)
  select event_id, event_name, created_at, source, payload, entity_id, run_id, chain_depth, parent_event_id, has_dead_letter, replay_of_event_id
  from json_populate_recordset(null::events, $1) with ordinality as r order by r.ordinality`;
const settleRuns = `update runs set settled_at = $1,
    status = case when exists (select 1 from dead_letters where dead_letters.run_id = runs.run_id and dead_letters.redriven_at is null) then 'failed' else 'completed' end
  where run_id = any($2::text[]) and coalesce(status, '') = 'running'
    and not exists (select 1 from deliveries where deliveries.run_id = runs.run_id and deliveries.status in ('pending', 'in_progress'))
  returning run_id`;

async function prepareQueue(client: pg.Client): Promise<void> {
  await client.query(`create table delivery_queue (delivery_id text primary key, ready_at text not null, lease_owner text, attempts integer not null)`);
  await client.query(`insert into delivery_queue select delivery_id, next_attempt_at, null, attempts from deliveries where status = 'pending'`);
  await client.query(`create index delivery_queue_ready on delivery_queue (ready_at)`);
  await client.query(`drop index deliveries_due`);
  await client.query(`drop index deliveries_leased`);
  await client.query(`drop index deliveries_run`);
  await client.query(`create index deliveries_run on deliveries (run_id)`);
  await client.query(`alter table deliveries set (fillfactor = ${FILLFACTOR})`);
  await client.query(`vacuum full deliveries`);
  await client.query(`analyze delivery_queue`);
}

async function drain(variant: Variant, round: number): Promise<Figures> {
  const name = `sb_bench_cycle_${process.pid}_${round}_${variant}`;
  const url = await createDatabase(name);
  try {
    const store = await Store.open({ databaseUrl: url });
    await queueBacklog(store, await packagesOf(root));
    await store.close();
    const client = new pg.Client(url);
    await client.connect();
    try {
      const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const cpuMs = () => {
        const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      };
      await client.query(`update deliveries set next_attempt_at = $1 where status = 'pending'`, [iso(Date.now() - 1000)]);
      // Same starting point for both: a rewritten, analyzed table (the queue variant needs the rewrite for its fillfactor).
      if (variant === 'queue') await prepareQueue(client);
      else await client.query('vacuum full deliveries');
      await client.query('analyze deliveries');
      const stats = async () => (await client.query<{ upd: string; hot: string }>(`select n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables where relname = 'deliveries'`)).rows[0]!;
      const steps = Object.fromEntries(STEPS.map((s) => [s, 0])) as Record<Step, number>;
      const timed = async <R extends pg.QueryResultRow>(step: Step, text: string, values: unknown[]) => {
        const before = cpuMs();
        const result = await client.query<R>({ name: step, text, values });
        steps[step] += cpuMs() - before;
        return result.rows;
      };
      const before = await stats();
      const startCpu = cpuMs();
      let delivered = 0;
      for (;;) {
        const claimed = await timed<{ delivery_id: string; event_id: string; run_id: string; attempts: number; chain_depth: number }>(
          'claim',
          variant === 'queue' ? queueClaim : todayClaim,
          [iso(), BATCH, 'bench-cycle', iso(Date.now() + 30_000)],
        );
        if (claimed.length === 0) break;
        await client.query('begin');
        const marked = await timed('mark', variant === 'queue' ? queueMark : todayMark, [iso(), claimed.map((r) => r.delivery_id), claimed.map((r) => r.attempts), 'bench-cycle']);
        if (marked.length !== claimed.length) throw new Error(`${variant}: marked ${marked.length} of ${claimed.length} claimed`);
        const emitted = claimed.map((r) => ({
          event_id: `evt_done_${r.delivery_id}`, event_name: 'work.done', created_at: iso(), source: 'node:noop', payload: '{"n":1}',
          entity_id: null, run_id: r.run_id, chain_depth: r.chain_depth + 1, parent_event_id: r.event_id, has_dead_letter: 0, replay_of_event_id: null,
        }));
        await timed('events', emittedEvents, [JSON.stringify(emitted)]);
        await timed('settle', settleRuns, [iso(), claimed.map((r) => r.run_id)]);
        await timed('change', `insert into changes (kinds, server_id, created_at) values ($1, $2, $3)`, ['deliveries,runs,events', 'bench-cycle', iso()]);
        await timed('commit', 'commit', []);
        delivered += claimed.length;
      }
      const total = cpuMs() - startCpu;
      // The statistics collector reports a backend's counts when its transaction ends, with a delay.
      await new Promise((r) => setTimeout(r, 1000));
      const after = await stats();
      const updates = Number(after.upd) - Number(before.upd);
      const perDelivery = (ms: number) => (ms * 1000) / delivered;
      return {
        deliveries: delivered,
        cpuPerDelivery: perDelivery(total),
        steps: Object.fromEntries(STEPS.map((s) => [s, perDelivery(steps[s])])) as Record<Step, number>,
        hotShare: updates > 0 ? (Number(after.hot) - Number(before.hot)) / updates : 0,
        load: loadAverage(),
      };
    } finally {
      await client.end();
    }
  } finally {
    await dropDatabase(name);
  }
}

const show = (f: Figures) =>
  `${f.cpuPerDelivery.toFixed(1)} us/delivery (${STEPS.map((s) => `${s} ${f.steps[s].toFixed(1)}`).join(', ')}); HOT ${(f.hotShare * 100).toFixed(0)}% of deliveries updates; ${f.deliveries} delivered`;

const results: Record<Variant, Figures[]> = { today: [], queue: [] };
try {
  console.log(`bench:cycle: ${ROUNDS} rounds, PostgreSQL backend CPU per delivery (us), batches of ${BATCH}, queue fillfactor ${FILLFACTOR}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const order: Variant[] = round % 2 === 1 ? ['today', 'queue'] : ['queue', 'today'];
    for (const variant of order) {
      const figures = await drain(variant, round);
      results[variant].push(figures);
      console.log(`  round ${round} ${variant.padEnd(5)} ${show(figures)} (load ${figures.load})`);
    }
  }
  console.log('medians:');
  for (const variant of ['today', 'queue'] as const) {
    const rows = results[variant];
    console.log(`  ${variant.padEnd(5)} ${median(rows.map((r) => r.cpuPerDelivery)).toFixed(1)} us/delivery (${STEPS.map((s) => `${s} ${median(rows.map((r) => r.steps[s])).toFixed(1)}`).join(', ')})`);
  }
  const ratio = median(results.queue.map((r) => r.cpuPerDelivery)) / median(results.today.map((r) => r.cpuPerDelivery));
  console.log(`  queue/today ${ratio.toFixed(2)}x (issue #41's target for the product: 0.5x)`);
} finally {
  await cleanUp();
}
