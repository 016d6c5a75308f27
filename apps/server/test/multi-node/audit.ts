/**
 * Counts, from the database, what the chaos did to the published keys: every acknowledged key
 * must have exactly one event (the one acknowledged), every subscriber exactly one delivery that
 * ended delivered or dead-lettered (one dead letter for a failed delivery, none for a delivered
 * one), and every handler's effect applied exactly once for a delivered delivery and never for a
 * dead-lettered one. One line per audit is printed, with every figure, pass or fail.
 */
import { expect } from 'vitest';
import type { Cluster } from './cluster';
import type { ChaosEvent, KeyRecord } from './load';

const SUBSCRIBERS: Record<ChaosEvent, string[]> = { work: ['tally', 'echo'], flaky: ['charge'], slow: ['slowpoke'] };
const EMITTED_BY: Record<string, string> = { echo: 'work.echoed', charge: 'flaky.ok', slowpoke: 'slow.done' };

export interface AuditFigures {
  acknowledged: number;
  present: number;
  lost: number;
  /** Keys (acknowledged or not) with more than one published event. */
  duplicates: number;
  /** Acknowledged keys whose one event is not the event the acknowledgement named. */
  mismatched: number;
  unacknowledged: number;
  unacknowledgedPresent: number;
  deliveries: number;
  completed: number;
  deadLettered: number;
  /** Still pending or in progress after the settle wait. */
  open: number;
  /** Cancelled (only a reset cancels deliveries). */
  cancelled: number;
  /** A subscriber of a present event with no delivery row, or with more than one. */
  missingDeliveries: number;
  duplicateDeliveries: number;
  /** Failed without exactly one dead letter, or delivered with one. */
  deadLetterMismatches: number;
  /** An effect applied more than once for one delivery. */
  doubledEffects: number;
  /** An effect of a delivery that did not complete, or none for one that did. */
  strayEffects: number;
  missingEffects: number;
}

async function auditKeys(cluster: Cluster, keys: Iterable<KeyRecord>): Promise<AuditFigures> {
  const records = [...keys];
  const roots = await cluster.query<{ event_id: string; event_name: string; key: string }>(
    `select event_id, event_name, payload::json->>'key' as key from events where chain_depth = 0 and event_name in ('work', 'flaky', 'slow')`,
  );
  const rootsByKey = group(roots, (r) => r.key);
  const deliveries = await cluster.query<{ delivery_id: string; event_id: string; subscriber_id: string; status: string }>('select delivery_id, event_id, subscriber_id, status from deliveries');
  const deliveriesOf = group(deliveries, (d) => `${d.event_id}/${d.subscriber_id}`);
  const deadLetters = group(await cluster.query<{ delivery_id: string }>('select delivery_id from dead_letters'), (d) => d.delivery_id);
  const children = group(await cluster.query<{ parent_event_id: string; event_name: string }>('select parent_event_id, event_name from events where chain_depth > 0'), (c) => `${c.parent_event_id}/${c.event_name}`);
  const tallies = new Map(
    (await cluster.query<{ entity_id: string; accumulated: string }>(`select entity_id, accumulated from entities where entity_type = 'tally'`)).map((e) => [e.entity_id, Number(JSON.parse(e.accumulated).applied ?? 0)]),
  );
  const turns = group(await cluster.query<{ trigger_event_id: string }>('select trigger_event_id from turns where error is null'), (t) => t.trigger_event_id);

  const f: AuditFigures = {
    acknowledged: 0,
    present: 0,
    lost: 0,
    duplicates: 0,
    mismatched: 0,
    unacknowledged: 0,
    unacknowledgedPresent: 0,
    deliveries: 0,
    completed: 0,
    deadLettered: 0,
    open: 0,
    cancelled: 0,
    missingDeliveries: 0,
    duplicateDeliveries: 0,
    deadLetterMismatches: 0,
    doubledEffects: 0,
    strayEffects: 0,
    missingEffects: 0,
  };
  for (const k of records) {
    const events = rootsByKey.get(k.key) ?? [];
    if (events.length > 1) f.duplicates++;
    if (k.acked) {
      f.acknowledged++;
      if (events.length === 0) f.lost++;
      else f.present++;
      if (events.length === 1 && events[0]!.event_id !== k.acked.event_id) f.mismatched++;
    } else {
      f.unacknowledged++;
      if (events.length > 0) f.unacknowledgedPresent++;
    }
    for (const event of events) {
      for (const subscriber of SUBSCRIBERS[k.event]) {
        const rows = deliveriesOf.get(`${event.event_id}/${subscriber}`) ?? [];
        if (rows.length === 0) f.missingDeliveries++;
        if (rows.length > 1) f.duplicateDeliveries++;
        for (const d of rows) {
          f.deliveries++;
          const letters = deadLetters.get(d.delivery_id)?.length ?? 0;
          if (d.status === 'delivered') f.completed++;
          else if (d.status === 'failed') f.deadLettered++;
          else if (d.status === 'cancelled') f.cancelled++;
          else f.open++;
          if ((d.status === 'failed' && letters !== 1) || (d.status !== 'failed' && letters !== 0)) f.deadLetterMismatches++;
          const applied = effectCount(subscriber, event.event_id, k.key, children, tallies, turns);
          const expected = d.status === 'delivered' ? 1 : 0;
          if (applied > 1) f.doubledEffects++;
          else if (applied > expected && d.status !== 'pending' && d.status !== 'in_progress') f.strayEffects++;
          else if (applied < expected) f.missingEffects++;
        }
      }
    }
  }
  return f;
}

/** How many times a subscriber's effect shows in the database for one event. */
function effectCount(
  subscriber: string,
  eventId: string,
  key: string,
  children: Map<string, unknown[]>,
  tallies: Map<string, number>,
  turns: Map<string, unknown[]>,
): number {
  if (subscriber === 'tally') return tallies.get(`tally-${key}`) ?? 0;
  const emitted = children.get(`${eventId}/${EMITTED_BY[subscriber]}`)?.length ?? 0;
  // The agent's turn and its emitted event commit together: either counts the effect.
  if (subscriber === 'slowpoke') return Math.max(emitted, turns.get(eventId)?.length ?? 0);
  return emitted;
}

function group<T>(rows: T[], by: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = by(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** Waits (bounded) until no delivery is open and nothing is queued; false when the time ran out or no server is left to do it. */
export async function waitSettled(cluster: Cluster, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await cluster.query<{ open: number; queued: number }>(
      `select (select count(*) from deliveries where status in ('pending', 'in_progress'))::int as open, (select count(*) from ingress_queue where status = 'queued')::int as queued`,
    );
    if (row!.open === 0 && row!.queued === 0) return true;
    if (Date.now() > deadline || !cluster.anyServerRunning()) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What is still open (for the printed line when a settle wait ran out). */
async function openWork(cluster: Cluster): Promise<Record<string, number | string>> {
  const rows = await cluster.query<{ what: string; n: number }>(
    `select 'deliveries_' || status as what, count(*)::int as n from deliveries where status in ('pending', 'in_progress') group by status
     union all select 'queued_publishes', count(*)::int from ingress_queue where status = 'queued'`,
  );
  const [ingress] = await cluster.query<{ value: string | null }>(`select value from runtime_state where key = 'ingress'`);
  return { ...Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.what, r.n])), ingress: ingress?.value ?? 'unset' };
}

/** Node processes that died on their own, one line each (their stderr tail is printed in full). */
function crashes(cluster: Cluster): string[] {
  return cluster.unexpectedExits().map((e) => {
    console.log(`[chaos] node ${e.server} exited by itself (code ${e.code}, signal ${e.signal}); stderr ends:\n${e.stderr}`);
    const error = e.stderr.split('\n').find((l) => /^\s*\w*error\b.*:/i.test(l)) ?? e.stderr.trim().split('\n').at(-1) ?? '';
    return `${e.server}: exit ${e.code ?? e.signal}: ${error.trim()}`;
  });
}

function printFigures(test: string, figures: object): void {
  const parts = Object.entries(figures).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`);
  console.log(`[chaos] ${test}: ${parts.join(' ')}`);
}

/** Figures of an audit that must all be zero. */
const MUST_BE_ZERO = [
  'lost',
  'duplicates',
  'mismatched',
  'open',
  'cancelled',
  'missingDeliveries',
  'duplicateDeliveries',
  'deadLetterMismatches',
  'doubledEffects',
  'strayEffects',
  'missingEffects',
] as const satisfies readonly (keyof AuditFigures)[];

/** The invariants every audit must satisfy; one assertion, so the failure shows every figure. */
function expectExactlyOnce(f: AuditFigures): void {
  expect(Object.fromEntries(MUST_BE_ZERO.map((k) => [k, f[k]]))).toEqual(Object.fromEntries(MUST_BE_ZERO.map((k) => [k, 0])));
}

/**
 * The end every chaos test shares: audits the keys once the cluster settled (or the wait ran out),
 * prints the test's figures with the audit's (and what is still open when it did not settle), and
 * checks that no server crashed and that nothing was lost, doubled or left open. Returns the audit.
 */
export async function auditAndCheck(cluster: Cluster, test: string, keys: Iterable<KeyRecord>, settled: boolean, figures: object): Promise<AuditFigures> {
  const audit = await auditKeys(cluster, keys);
  const crashed = crashes(cluster);
  printFigures(test, { crashed, ...figures, settled, stillOpen: settled ? {} : await openWork(cluster), ...audit });
  expect(crashed).toEqual([]);
  expectExactlyOnce(audit);
  return audit;
}
