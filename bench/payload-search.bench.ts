/**
 * Payload search at scale, at the store layer: fills a fresh store with BENCH_EVENTS events
 * (default 1,000,000) whose payload carries a ticket id declared indexed, then times the first
 * page (50 events) of an indexed payload condition (`ticket_id = T-…`) against an entity_id filter
 * of the same selectivity (each ticket's events share one entity), alternating the order every
 * round, and the first page of an unindexed condition (bounded by the scan bound).
 *
 *   npm run bench:payload                                  SQLite, 1,000,000 events
 *   BENCH_EVENTS=100000 npm run bench:payload              quick run
 *   BENCH_DATABASE_URL=postgres://… npm run bench:payload  PostgreSQL (a role that may create databases)
 */
import { randomBytes } from 'node:crypto';
import { PostgresAdmin, removeDataDir, temporaryDataDir } from '@switchboard/testkit';
import { PAYLOAD_SCAN_BOUND, Store, type BulkEvent, type EventFilter } from '@switchboard/store';
import { databaseOf, sql } from '@switchboard/store/testing';
import { loadAverage, median } from './rounds';
import { prng } from './prng';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const PAGE = 50;
const BATCH = 5000;
/** Events per ticket (and per entity): both filters match as many events. */
const EVENTS_PER_TICKET = 20;
const SPAN_MS = 30 * 24 * 3600_000;
const NAMES = ['ticket.created', 'ticket.updated', 'refund.requested', 'refund.approved', 'refund.paid'];

const rand = prng(39);
const tickets = Math.max(1, Math.floor(EVENTS / EVENTS_PER_TICKET));

async function fill(store: Store): Promise<number> {
  const started = performance.now();
  if (store.engine === 'sqlite') await sql`pragma synchronous = off`.execute(databaseOf(store));
  const start = Date.now() - SPAN_MS;
  const step = SPAN_MS / EVENTS;
  for (let base = 0; base < EVENTS; base += BATCH) {
    const batch: BulkEvent[] = [];
    for (let i = base; i < Math.min(EVENTS, base + BATCH); i++) {
      const created_at = new Date(Math.floor(start + i * step)).toISOString();
      const k = Math.floor(rand() * tickets);
      const payload = { ticket_id: `T-${k}`, order_id: `ORD-${k}`, amount: Math.floor(rand() * 50_000) / 100, customer: { id: `cust-${Math.floor(rand() * 5000)}`, tier: rand() < 0.1 ? 'gold' : 'standard' } };
      batch.push({
        event: {
          event_id: `evt_${i.toString(36).padStart(7, '0')}`,
          event_name: NAMES[Math.floor(rand() * NAMES.length)]!,
          created_at,
          source: 'bench',
          payload: JSON.stringify(payload),
          entity_id: `ticket-${k}`,
          run_id: null,
          chain_depth: 0,
          parent_event_id: null,
          has_dead_letter: 0,
        },
        deliveries: [],
        dead_letters: [],
      });
    }
    await store.events.bulkInsert(batch);
    if ((base / BATCH) % 40 === 0) process.stdout.write(`  filled ${base + batch.length}/${EVENTS}\r`);
  }
  if (store.engine === 'postgres') await sql`analyze events`.execute(databaseOf(store));
  return performance.now() - started;
}

/** Milliseconds for the first page of `filter`. */
async function firstPage(store: Store, filter: EventFilter): Promise<number> {
  const t0 = performance.now();
  await store.events.page(filter, { limit: PAGE });
  return performance.now() - t0;
}

const ticketFilter = (k: number): EventFilter => ({ payload: [{ path: 'ticket_id', op: 'eq', value: `T-${k}` }] });
const entityFilter = (k: number): EventFilter => ({ entity_id: `ticket-${k}` });
const unindexedFilter = (k: number): EventFilter => ({ payload: [{ path: 'customer.id', op: 'eq', value: `cust-${k % 5000}` }] });

async function main(): Promise<void> {
  let dir: string | undefined;
  let pgDatabase: { admin: PostgresAdmin; name: string } | undefined;
  let store: Store;
  if (DATABASE_URL) {
    const admin = new PostgresAdmin(DATABASE_URL);
    const name = `sb_test_bench_payload_${randomBytes(4).toString('hex')}`;
    store = await Store.open({ databaseUrl: await admin.create(name) });
    pgDatabase = { admin, name };
  } else {
    dir = temporaryDataDir('bench-payload');
    store = await Store.open({ dataDir: dir });
  }
  try {
    console.log(`payload search on ${store.engine}: ${EVENTS} events, ${tickets} tickets of ~${EVENTS_PER_TICKET} events, first page of ${PAGE}`);
    // Declared before the fill, as a bundle declares it at boot: the inserts maintain it.
    await store.events.ensurePayloadIndexes(['ticket_id']);
    const fillMs = await fill(store);
    console.log(`\nfill: ${(fillMs / 1000).toFixed(1)} s (${Math.round(EVENTS / (fillMs / 1000))} events/s, ticket_id index maintained)`);
    const indexedRounds: number[] = [];
    const entityRounds: number[] = [];
    const unindexedRounds: number[] = [];
    // Warm-up: the first queries pay for compiling and caching.
    for (let i = 0; i < 5; i++) {
      await firstPage(store, ticketFilter(i));
      await firstPage(store, entityFilter(i));
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const keys = Array.from({ length: SAMPLES }, () => Math.floor(rand() * tickets));
      const indexed: number[] = [];
      const entity: number[] = [];
      for (const k of keys) {
        // Alternate which goes first, so neither always meets a warmer cache.
        if ((round + k) % 2 === 0) {
          indexed.push(await firstPage(store, ticketFilter(k)));
          entity.push(await firstPage(store, entityFilter(k)));
        } else {
          entity.push(await firstPage(store, entityFilter(k)));
          indexed.push(await firstPage(store, ticketFilter(k)));
        }
      }
      const unindexed: number[] = [];
      for (const k of keys.slice(0, 5)) unindexed.push(await firstPage(store, unindexedFilter(k)));
      indexedRounds.push(median(indexed));
      entityRounds.push(median(entity));
      unindexedRounds.push(median(unindexed));
      console.log(
        `round ${round}: indexed payload ${median(indexed).toFixed(2)} ms, entity_id ${median(entity).toFixed(2)} ms, ratio ${(median(indexed) / median(entity)).toFixed(2)}; unindexed (scan bound ${PAYLOAD_SCAN_BOUND}) ${median(unindexed).toFixed(1)} ms; load ${loadAverage()}`,
      );
    }
    const ratio = median(indexedRounds) / median(entityRounds);
    console.log(`\nmedians over ${ROUNDS} rounds of ${SAMPLES} first pages each (${store.engine}, ${EVENTS} events):`);
    console.log(`  indexed payload condition  ${median(indexedRounds).toFixed(2)} ms`);
    console.log(`  entity_id filter           ${median(entityRounds).toFixed(2)} ms`);
    console.log(`  ratio indexed / entity_id  ${ratio.toFixed(2)}  (target <= 2: ${ratio <= 2 ? 'met' : 'MISSED'})`);
    console.log(`  unindexed, bounded         ${median(unindexedRounds).toFixed(1)} ms (looks at ${PAYLOAD_SCAN_BOUND} events per page)`);
  } finally {
    await store.close();
    if (dir) removeDataDir(dir);
    if (pgDatabase) await pgDatabase.admin.drop(pgDatabase.name);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
