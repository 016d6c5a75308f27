import { sql, type Compilable, type Expression, type ExpressionBuilder, type Kysely, type QueryResult, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import { compiledOnce } from '../compiled-once';
import { executorOf, storeTxOf, type StoreTx } from '../store-tx';
import type { StoreEngine } from '../engines/engine';
import type { Database, LogsTable } from '../schema';
import { markChange, type ChangeFeedRepository } from '../change-feed';
import type { IncidentRollupCache, PeriodRollupRow } from './incident-rollup-cache';
import type { RuntimeStateRepository } from './runtime-state';
import { adjacentRanges, ROLLUP_PERIODS, type IncidentRollup } from './incident-rollup-periods';

/** Log records at or above this rank (warn) are incidents; debug and info are not. */
export const INCIDENT_MIN_LEVEL_RANK = 2;

/**
 * An incident group: component, error code and cause. The cause is '' for records without one; a
 * dead letter's record has `["<subscriber_id>","<reason_code>"]` (migration 015), so one incident
 * has one cause. Absent means ''.
 */
export interface IncidentKey {
  component: string;
  error_code: string | null;
  cause_key?: string;
}

/**
 * The log records of one incident group, on `logs` (or its alias): what every read of a group's
 * records filters by, here and in retention's samples. The level floor is the caller's: some reads
 * take it with their window. The component goes through `unplannedValue`: bound as a plain value,
 * SQLite plans the statement again on every call (docs/performance-notes.md).
 */
export function incidentGroupConditions(eb: ExpressionBuilder<any, any>, engine: StoreEngine, key: IncidentKey, alias?: string): Expression<SqlBool>[] {
  const col = (c: string) => (alias ? `${alias}.${c}` : c);
  return [
    eb(col('component'), '=', engine.unplannedValue(key.component)),
    key.error_code === null ? eb(col('error_code'), 'is', null) : eb(col('error_code'), '=', key.error_code),
    eb(col('cause_key'), '=', key.cause_key ?? ''),
  ];
}

/** A dead letter's cause key, as the runtime writes it on its DEAD_LETTER record. */
export function deadLetterCauseKey(subscriberId: string, reasonCode: string): string {
  return JSON.stringify([subscriberId, reasonCode]);
}

const INCIDENT_ID_PREFIX = 'inc_';

/**
 * An incident is a group, not a stored row: its id encodes the group key (component, error code,
 * and the cause when it has one), so runtime.incident_logs can address the same group without a
 * lookup table. A group without a cause keeps the id it had before causes (two elements).
 */
export function incidentId(key: IncidentKey): string {
  const parts = key.cause_key ? [key.component, key.error_code, key.cause_key] : [key.component, key.error_code];
  return INCIDENT_ID_PREFIX + Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export function parseIncidentId(id: string): IncidentKey | undefined {
  if (!id.startsWith(INCIDENT_ID_PREFIX)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(id.slice(INCIDENT_ID_PREFIX.length), 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length < 2 || value.length > 3) return undefined;
    const [component, errorCode, causeKey = ''] = value as unknown[];
    if (typeof component !== 'string' || (errorCode !== null && typeof errorCode !== 'string') || typeof causeKey !== 'string') return undefined;
    return { component, error_code: errorCode, cause_key: causeKey };
  } catch {
    return undefined;
  }
}

/** The subscriber and reason a cause key names, when it names them. */
export function parseCauseKey(causeKey: string | undefined): { subscriber_id: string; reason_code: string } | undefined {
  if (!causeKey) return undefined;
  try {
    const v: unknown = JSON.parse(causeKey);
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return { subscriber_id: v[0], reason_code: v[1] };
  } catch {
    // not a cause this version writes
  }
  return undefined;
}

/** Occurrences of an incident counted by one property, most first. */
export interface IncidentBreakdownEntry {
  value: string;
  count: number;
}

export interface IncidentBreakdown {
  subscribers: IncidentBreakdownEntry[];
  reasons: IncidentBreakdownEntry[];
  event_names: IncidentBreakdownEntry[];
}

/** The states an operator can give an incident group (incident_states.state). */
export type IncidentStateName = 'open' | 'acknowledged' | 'resolved' | 'ignored';

export interface IncidentStateChange {
  state: IncidentStateName;
  actor_token_id: string;
  note: string | null;
  ignore_until: string | null;
  ignore_occurrences: number | null;
  now: string;
}

/** Warn-or-worse records with `ts` in [windowStart, windowEnd), narrowed by the filters. */
export interface IncidentWindow {
  windowStart: string;
  windowEnd: string;
  component?: string;
  mcpOnly?: boolean;
}

/** A group's aggregates over a window. */
export interface IncidentAggregate extends IncidentKey {
  cause_key: string;
  count: number;
  first_seen: string;
  last_seen: string;
  level_rank: number;
  /** Counts per equal bucket of the window; empty when no buckets were asked for. */
  histogram: number[];
}

/** A group's record count in a window. */
export interface IncidentGroupCount extends IncidentKey {
  cause_key: string;
  count: number;
}

/** One of a group's latest records. */
export interface IncidentSample {
  log_id: string;
  message: string;
}

/**
 * A state an operator gave a group, with the group's warn-or-worse records since the change
 * (any window): the first one's time for a resolved or ignored group, their number for a group
 * ignored until a count of occurrences; null where the state does not need them.
 */
export interface IncidentStateRecord extends IncidentKey {
  cause_key: string;
  state: IncidentStateName;
  changed_at: string;
  actor_token_id: string;
  note: string | null;
  ignore_until: string | null;
  ignore_occurrences: number | null;
  first_occurrence_since: string | null;
  occurrences_since: number | null;
}

/** A state change in a group's activity; a resolve carries the first record after it, if any. */
export interface IncidentActivityRecord {
  ts: string;
  actor_token_id: string;
  actor_token_name: string | null;
  state: IncidentStateName;
  note: string | null;
  ignore_until: string | null;
  ignore_occurrences: number | null;
  first_occurrence_after: string | null;
}

export type LogRow = Selectable<LogsTable>;

const SAMPLE_SIZE = 5;
/** Compiled statements kept per read (one per shape, see ShapedStatements); past it the read's cache starts over. */
const MAX_SHAPES = 64;
type SampleRow = { component: string; error_code: string | null; cause_key: string; log_id: string; message: string; ts: string; seq: number };
/** runtime_state key: the hour (ISO) before which retention removed log records; see windowGroups. */
export const RECORDS_COMPLETE_FROM_KEY = 'retention_logs_complete_from';
const HOUR_MS = ROLLUP_PERIODS.incident_hours.ms;
const MINUTE_MS = ROLLUP_PERIODS.incident_minutes.ms;
const SIX_HOURS_MS = ROLLUP_PERIODS.incident_six_hours.ms;

/** The incident rollup's hour of an ISO timestamp: "YYYY-MM-DDTHH". */
const hourOf = (ts: string) => ts.slice(0, ROLLUP_PERIODS.incident_hours.textLength);
/** The per-minute rollup's minute of an ISO timestamp: "YYYY-MM-DDTHH:MM". */
export const minuteOf = (ts: string) => ts.slice(0, ROLLUP_PERIODS.incident_minutes.textLength);
/** The six-hour block of an ISO timestamp (or hour text): its first hour, "YYYY-MM-DDTHH" with HH 00, 06, 12 or 18. */
export const sixHourBlockOf = (ts: string) => ts.slice(0, 11) + String(Math.floor(Number(ts.slice(11, 13)) / 6) * 6).padStart(2, '0');
/** The hour text of the block after the one `block` names. */
export const nextSixHourBlock = (block: string) => hourOf(iso(Date.parse(`${block}:00:00.000Z`) + SIX_HOURS_MS));
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Every state row with its records since the change (IncidentRepository.states), compiled once:
 * the incidents page reads it on every call.
 */
const readStates = compiledOnce((db) => {
  const since = (aggregate: 'first' | 'count') => {
    const value = aggregate === 'first' ? sql`min(${sql.ref('l.ts')})` : sql`count(*)`;
    const walk = (codeMatches: RawBuilder<unknown>) =>
      sql`(select ${value} from logs as l where ${sql.ref('l.level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)} and ${sql.ref('l.component')} = ${sql.ref('s.component')} and ${codeMatches} and ${sql.ref('l.cause_key')} = ${sql.ref('s.cause_key')} and ${sql.ref('l.ts')} > ${sql.ref('s.changed_at')})`;
    return sql`case when ${sql.ref('s.error_key')} = '' then ${walk(sql`${sql.ref('l.error_code')} is null`)} else ${walk(sql`${sql.ref('l.error_code')} = ${sql.ref('s.error_key')}`)} end`;
  };
  return db
    .selectFrom('incident_states as s')
    .selectAll('s')
    .select([
      sql<string | null>`case when ${sql.ref('s.state')} in ('resolved', 'ignored') then ${since('first')} end`.as('first_occurrence_since'),
      sql<number | string | null>`case when ${sql.ref('s.state')} = 'ignored' and ${sql.ref('s.ignore_occurrences')} is not null then ${since('count')} end`.as('occurrences_since'),
    ]);
});

/**
 * Warn-and-above log records grouped by (component, error code, cause) inside a window, and the
 * states operators gave those groups. Reads are set-based: one grouped query for a window's
 * aggregates, one for a page's samples, one for every state with its occurrences since; what an
 * incident's state is now, and how a list is sorted, is the runtime's (runtime/src/incidents).
 */
export class IncidentRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
    private readonly engine: StoreEngine,
    private readonly runtimeState: RuntimeStateRepository,
  ) {}

  /** The rollup rows in memory (SQLite, see incident-rollup-cache.ts); without it every window reads them in SQL. */
  private rollupCache: IncidentRollupCache | undefined;

  private readonly latestSampleStatements = new ShapedStatements<SampleRow>();
  private readonly groupCountStatements = new ShapedStatements<{ component: string; error_code: string | null; cause_key: string; n: number }>();
  private readonly cutMinuteStatements = new ShapedStatements<{ ts: string; component: string; error_key: string; cause_key: string; level_rank: number }>();

  /** Keeps the rollup rows in memory from now on (the store opens it on SQLite, after its migrations). */
  keepRollupsInMemory(cache: IncidentRollupCache): void {
    this.rollupCache = cache;
  }

  /**
   * Every state an operator gave a group, each with its records since the change, in one
   * statement: per state row, an index walk of its group from the change on (the one for the
   * group without an error code matches `error_code is null`).
   */
  async states(): Promise<IncidentStateRecord[]> {
    const { rows } = await readStates(this.db);
    return rows.map((r) => ({
      component: r.component,
      error_code: r.error_key === '' ? null : r.error_key,
      cause_key: r.cause_key,
      state: r.state as IncidentStateName,
      changed_at: r.changed_at,
      actor_token_id: r.actor_token_id,
      note: r.note,
      ignore_until: r.ignore_until,
      ignore_occurrences: r.ignore_occurrences === null ? null : Number(r.ignore_occurrences),
      first_occurrence_since: r.first_occurrence_since ?? null,
      occurrences_since: r.occurrences_since === null ? null : Number(r.occurrences_since),
    }));
  }

  /** Each group's record count in the window (one grouped read of the window's index entries). */
  async groupCounts(window: IncidentWindow): Promise<IncidentGroupCount[]> {
    const { rows } = await this.groupCountStatements.run(this.db, windowShape(window), windowArguments(window), (db, ...args) =>
      db
        .selectFrom('logs')
        .select(['component', 'error_code', 'cause_key', (eb) => eb.fn.countAll<number>().as('n')])
        .where((eb) => eb.and(this.windowConditions(eb, windowOf(window, args))))
        .groupBy(['component', 'error_code', 'cause_key']),
    );
    return rows.map((r) => ({ component: r.component, error_code: r.error_code, cause_key: r.cause_key, count: Number(r.n) }));
  }

  /** Whether a group ever had a warn-or-worse record (an incident id names something real). */
  async exists(key: IncidentKey): Promise<boolean> {
    const row = await this.db
      .selectFrom('logs')
      .select('log_id')
      .where((eb) => eb.and([sql<SqlBool>`${sql.ref('level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`, ...incidentGroupConditions(eb, this.engine, key)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Whether a group has a warn-or-worse record other than `logId`, read in the caller's
   * transaction (the record that may be the group's first was written there).
   */
  async occurredBefore(key: IncidentKey, logId: string, tx: StoreTx): Promise<boolean> {
    const row = await executorOf(tx)
      .selectFrom('logs')
      .select('log_id')
      .where((eb) => eb.and([sql<SqlBool>`${sql.ref('level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`, ...incidentGroupConditions(eb, this.engine, key), eb('log_id', '<>', logId)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Groups an operator resolved, with when: an occurrence after that regresses them. */
  async resolvedGroups(): Promise<(IncidentKey & { cause_key: string; resolved_at: string })[]> {
    const rows = await this.db.selectFrom('incident_states').select(['component', 'error_key', 'cause_key', 'changed_at']).where('state', '=', 'resolved').execute();
    return rows.map((r) => ({ component: r.component, error_code: r.error_key === '' ? null : r.error_key, cause_key: r.cause_key, resolved_at: r.changed_at }));
  }

  /**
   * Groups with at least `threshold` warn-or-worse records since `since`, with their counts
   * (the incident.occurrences alert's condition).
   */
  async groupsAtLeast(since: string, threshold: number): Promise<(IncidentKey & { cause_key: string; count: number })[]> {
    const rows = await this.db
      .selectFrom('logs')
      .select(['component', 'error_code', 'cause_key', (eb) => eb.fn.countAll<number>().as('n')])
      .where(sql<SqlBool>`${sql.ref('level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`)
      .where('ts', '>=', since)
      .groupBy(['component', 'error_code', 'cause_key'])
      .having((eb) => eb.fn.countAll(), '>=', threshold)
      .execute();
    return rows.map((r) => ({ component: r.component, error_code: r.error_code, cause_key: r.cause_key, count: Number(r.n) }));
  }

  /** Sets a group's state and records the change in its activity, in one transaction. */
  async setState(key: IncidentKey, change: IncidentStateChange, onCommit?: (tx: StoreTx) => Promise<void>): Promise<void> {
    const error_key = key.error_code ?? '';
    const cause_key = key.cause_key ?? '';
    const values = {
      state: change.state,
      changed_at: change.now,
      actor_token_id: change.actor_token_id,
      note: change.note,
      ignore_until: change.ignore_until,
      ignore_occurrences: change.ignore_occurrences,
    };
    await this.changes.transaction(async (trx) => {
      markChange(storeTxOf(trx), 'incidents');
      await trx
        .insertInto('incident_states')
        .values({ component: key.component, error_key, cause_key, ...values })
        .onConflict((oc) => oc.columns(['component', 'error_key', 'cause_key']).doUpdateSet(values))
        .execute();
      await trx
        .insertInto('incident_activity')
        .values({ component: key.component, error_key, cause_key, ts: change.now, actor_token_id: change.actor_token_id, state: change.state, note: change.note, ignore_until: change.ignore_until, ignore_occurrences: change.ignore_occurrences })
        .execute();
      await onCommit?.(storeTxOf(trx));
    });
  }

  /** A group's state changes, oldest first; a resolve carries the first record after it (one statement). */
  async activity(key: IncidentKey): Promise<IncidentActivityRecord[]> {
    const rows = await this.db
      .selectFrom('incident_activity as a')
      .leftJoin('tokens as t', 't.id', 'a.actor_token_id')
      .selectAll('a')
      .select('t.name as actor_token_name')
      .select((eb) => {
        const firstAfter = eb
          .selectFrom('logs as l')
          .select(sql<string | null>`min(${sql.ref('l.ts')})`.as('ts'))
          .where((w) =>
            w.and([
              sql<SqlBool>`${sql.ref('l.level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`,
              ...incidentGroupConditions(w, this.engine, key, 'l'),
              sql<SqlBool>`${sql.ref('l.ts')} > ${sql.ref('a.ts')}`,
            ]),
          );
        return sql<string | null>`case when ${sql.ref('a.state')} = 'resolved' then (${firstAfter}) end`.as('first_occurrence_after');
      })
      .where('a.component', '=', key.component)
      .where('a.error_key', '=', key.error_code ?? '')
      .where('a.cause_key', '=', key.cause_key ?? '')
      .orderBy('a.seq')
      .execute();
    return rows.map((r) => ({
      ts: r.ts,
      actor_token_id: r.actor_token_id,
      actor_token_name: r.actor_token_name,
      state: r.state as IncidentStateName,
      note: r.note,
      ignore_until: r.ignore_until,
      ignore_occurrences: r.ignore_occurrences,
      first_occurrence_after: r.first_occurrence_after ?? null,
    }));
  }

  /** Log records of one group inside the window, latest first. */
  async logs(key: IncidentKey, window: { windowStart: string; windowEnd: string }, limit: number): Promise<LogRow[]> {
    return this.db
      .selectFrom('logs')
      .selectAll()
      .where((eb) => eb.and([...this.windowConditions(eb, window), ...incidentGroupConditions(eb, this.engine, key)]))
      .orderBy('ts', 'desc')
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * The dead letters an incident's records in the window name (by dead letter or by delivery), and
   * how many of them were redriven and how many of those redrives were delivered.
   */
  async deadLetterRecovery(key: IncidentKey, window: { windowStart: string; windowEnd: string }): Promise<{ total: number; redriven: number; delivered: number }> {
    const inGroup = (column: 'dead_letter_id' | 'delivery_id') =>
      this.db
        .selectFrom('logs')
        .select(column)
        .where((eb) => eb.and([...this.windowConditions(eb, window), ...incidentGroupConditions(eb, this.engine, key), eb(column, 'is not', null)]));
    const row = await this.db
      .selectFrom('dead_letters as l')
      .leftJoin('deliveries as d', 'd.delivery_id', 'l.redrive_delivery_id')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.count<number>('l.redriven_at').as('redriven'),
        eb.fn.sum<number>(eb.case().when('d.status', '=', 'delivered').then(1).else(0).end()).as('delivered'),
      ])
      .where((eb) => eb.or([eb('l.dead_letter_id', 'in', inGroup('dead_letter_id') as never), eb('l.delivery_id', 'in', inGroup('delivery_id') as never)]))
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), redriven: Number(row.redriven), delivered: Number(row.delivered ?? 0) };
  }

  /**
   * An incident's occurrences in the window counted by subscriber, reason and event name: through
   * the dead letter a record names, else its delivery, and its event. Records that name none of
   * them are not counted in that list.
   */
  async breakdown(key: IncidentKey, window: { windowStart: string; windowEnd: string }): Promise<IncidentBreakdown> {
    const rows = await this.db
      .selectFrom('logs as l')
      .leftJoin('dead_letters as x', 'x.dead_letter_id', 'l.dead_letter_id')
      .leftJoin('deliveries as d', 'd.delivery_id', 'l.delivery_id')
      .leftJoin('events as e', 'e.event_id', 'l.event_id')
      .select((eb) => [
        eb.fn.coalesce('x.subscriber_id', 'd.subscriber_id').as('subscriber_id'),
        eb.fn.coalesce('x.reason_code', 'd.reason_code').as('reason_code'),
        'e.event_name',
        eb.fn.countAll<number>().as('n'),
      ])
      .where((eb) => eb.and([...this.windowConditions(eb, window, 'l'), ...incidentGroupConditions(eb, this.engine, key, 'l')]))
      .groupBy([sql`1`, sql`2`, sql`3`])
      .execute();
    const tally = (pick: (r: (typeof rows)[number]) => string | null | undefined): IncidentBreakdownEntry[] => {
      const counts = new Map<string, number>();
      for (const r of rows) {
        const v = pick(r);
        if (v) counts.set(v, (counts.get(v) ?? 0) + Number(r.n));
      }
      return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || compareText(a.value, b.value));
    };
    return { subscribers: tally((r) => r.subscriber_id), reasons: tally((r) => r.reason_code), event_names: tally((r) => r.event_name) };
  }

  /** The payload of the event the incident's latest record (in the window) names, if any names one. */
  async samplePayload(key: IncidentKey, window: { windowStart: string; windowEnd: string }): Promise<{ event_id: string; event_name: string; payload: string } | undefined> {
    return this.db
      .selectFrom('logs as l')
      .innerJoin('events as e', 'e.event_id', 'l.event_id')
      .select(['e.event_id', 'e.event_name', 'e.payload'])
      .where((eb) => eb.and([...this.windowConditions(eb, window, 'l'), ...incidentGroupConditions(eb, this.engine, key, 'l')]))
      .orderBy('l.ts', 'desc')
      .orderBy('l.seq', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * The dead letters an incident's records in the window name that were not redriven yet, oldest
   * first, at most `limit`: exactly what "redrive this incident" selects.
   */
  async unredrivenDeadLetterIds(key: IncidentKey, window: { windowStart: string; windowEnd: string }, limit: number): Promise<string[]> {
    const inGroup = (column: 'dead_letter_id' | 'delivery_id') =>
      this.db
        .selectFrom('logs')
        .select(column)
        .where((eb) => eb.and([...this.windowConditions(eb, window), ...incidentGroupConditions(eb, this.engine, key), eb(column, 'is not', null)]));
    const rows = await this.db
      .selectFrom('dead_letters as l')
      .select('l.dead_letter_id')
      .where('l.redriven_at', 'is', null)
      .where((eb) => eb.or([eb('l.dead_letter_id', 'in', inGroup('dead_letter_id') as never), eb('l.delivery_id', 'in', inGroup('delivery_id') as never)]))
      .orderBy('l.created_at')
      .orderBy('l.dead_letter_id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.dead_letter_id);
  }

  /** Conditions on `logs` (or on `logs` as `alias`): warn or worse, in the window, the filters. */
  private windowConditions(eb: ExpressionBuilder<any, any>, q: IncidentWindow, alias?: string) {
    const col = (c: string) => (alias ? `${alias}.${c}` : c);
    return [eb(col('ts'), '>=', q.windowStart), eb(col('ts'), '<', q.windowEnd), ...this.recordConditions(eb, q, alias)];
  }

  /** Warn-or-worse records narrowed by the window's filters, at any time. */
  private recordConditions(eb: ExpressionBuilder<any, any>, q: Pick<IncidentWindow, 'component' | 'mcpOnly'>, alias?: string) {
    const col = (c: string) => (alias ? `${alias}.${c}` : c);
    // Literals, so SQLite can match the partial indexes (level_rank >= 2, is_mcp = 1).
    const c: Expression<SqlBool>[] = [sql<SqlBool>`${sql.ref(col('level_rank'))} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`];
    if (q.component !== undefined) c.push(eb(col('component'), '=', this.engine.unplannedValue(q.component)));
    if (q.mcpOnly) c.push(sql<SqlBool>`${sql.ref(col('is_mcp'))} = 1`);
    return c;
  }

  /**
   * Every group in the window with its aggregates and per-bucket counts. Whole hours that no
   * bucket boundary cuts come from the hourly rollup (a few rows per hour), a bucket's whole
   * six-hour blocks from theirs; in the hours at the
   * window's edges and at bucket boundaries, whole minutes come from the per-minute rollup and
   * the minutes a cut falls inside from the records themselves, so counts, first/last seen and
   * the histogram stay exact. Three plain reads. Each rollup read joins a VALUES list of
   * (bucket, from, to) period ranges, one per bucket (and cut hour), that leave out the periods
   * read finer: an index search per range, and the bucket comes with the range. A CASE on each
   * row's period to find its bucket, and a NOT IN of the cut periods, cost more than the rows
   * (docs/performance-notes.md).
   */
  async windowGroups(q: IncidentWindow & { histogramBuckets: number }): Promise<IncidentAggregate[]> {
    const buckets = Math.max(1, q.histogramBuckets);
    const start = Date.parse(q.windowStart);
    const end = Date.parse(q.windowEnd);
    const width = (end - start) / buckets;
    const boundsMs = Array.from({ length: buckets - 1 }, (_, i) => Math.floor(start + width * (i + 1)));
    const out = new Map<string, IncidentAggregate>();
    const add = (r: { component: string; error_key: string; cause_key: string; n: number; first_seen: string; last_seen: string; level_rank: number; group_key?: string }, bucket: number) => {
      const error_code = r.error_key === '' ? null : r.error_key;
      const key = r.group_key ?? incidentGroupKey({ component: r.component, error_code, cause_key: r.cause_key });
      let g = out.get(key);
      if (!g) {
        g = { component: r.component, error_code, cause_key: r.cause_key, count: 0, first_seen: r.first_seen, last_seen: r.last_seen, level_rank: 0, histogram: new Array<number>(q.histogramBuckets).fill(0) };
        out.set(key, g);
      }
      const n = Number(r.n);
      g.count += n;
      if (r.first_seen < g.first_seen) g.first_seen = r.first_seen;
      if (r.last_seen > g.last_seen) g.last_seen = r.last_seen;
      g.level_rank = Math.max(g.level_rank, Number(r.level_rank));
      if (q.histogramBuckets > 0) g.histogram[bucket]! += n;
    };

    // Hours that a window edge or a bucket boundary cuts are counted per minute, not from the
    // hourly rollup; but not before retention removed records (ADR 0018): the hourly rollup then
    // counts each of those hours whole, as it counted them before the records went.
    const completeFrom = await this.recordsCompleteFrom();
    const cuts = [start, ...boundsMs, end];
    const cutHours = new Set<number>();
    for (const at of cuts) if (at % HOUR_MS !== 0 && at - (at % HOUR_MS) >= completeFrom) cutHours.add(at - (at % HOUR_MS));
    // In a cut hour, the minutes a cut falls inside are read from the records, clipped to the
    // window; its other minutes in the window come from the per-minute rollup.
    const cutMinutes = new Set<number>();
    for (const at of cuts) if (at % MINUTE_MS !== 0 && cutHours.has(at - (at % HOUR_MS))) cutMinutes.add(at - (at % MINUTE_MS));

    // A cut hour inside the window that a single boundary cuts is read whole from the hourly
    // rollup, into the bucket of its longer side (its first/last seen and level are the window's
    // too, as the whole hour is in it); only its shorter side is read per minute (and its cut
    // minute from the records), and that count moves to the other bucket. About half the minutes
    // of every such hour are not read.
    const splitHours: SplitHour[] = [];
    for (const [i, bound] of boundsMs.entries()) {
      const hour = bound - (bound % HOUR_MS);
      if (!cutHours.has(hour) || hour < start || hour + HOUR_MS > end) continue;
      if (boundsMs.some((other, j) => j !== i && other - (other % HOUR_MS) === hour)) continue;
      const earlyShort = bound - hour < HOUR_MS / 2;
      splitHours.push({
        hour,
        longSide: earlyShort ? i + 1 : i,
        shortSide: earlyShort ? i : i + 1,
        shortMinutes: earlyShort ? [hour, bound - (bound % MINUTE_MS)] : [Math.ceil(bound / MINUTE_MS) * MINUTE_MS, hour + HOUR_MS],
      });
    }
    const splitAt = new Map(splitHours.map((h, j) => [h.hour, j]));
    // Rows of split hour j come labelled buckets + j.
    const splitLabel = (hour: number) => buckets + splitAt.get(hour)!;

    // Whole hours inside the window that nothing cuts, by bucket. Hours before the records are
    // complete are whole for the rollup even where the window cuts them, and one a boundary cuts
    // counts in the bucket that begins inside it.
    const startHour = start - (start % HOUR_MS);
    const endHour = end - (end % HOUR_MS);
    const firstWhole = startHour < completeFrom ? startHour : Math.ceil(start / HOUR_MS) * HOUR_MS;
    const wholeEnd = end % HOUR_MS !== 0 && endHour < completeFrom ? endHour + HOUR_MS : Math.floor(end / HOUR_MS) * HOUR_MS;
    // A bucket's whole six-hour blocks come from their rollup, the hours at its ends from the hourly one.
    const hourRanges: [number, number, number][] = [];
    const blockRanges: [number, number, number][] = [];
    for (const [bucket, from, to] of bucketRanges(boundsMs, HOUR_MS, cutHours, [[firstWhole, wholeEnd]])) {
      const firstBlock = Math.ceil(from / SIX_HOURS_MS) * SIX_HOURS_MS;
      const blocksEnd = to - (to % SIX_HOURS_MS);
      if (firstBlock >= blocksEnd) {
        hourRanges.push([bucket, from, to]);
        continue;
      }
      if (from < firstBlock) hourRanges.push([bucket, from, firstBlock]);
      blockRanges.push([bucket, firstBlock, blocksEnd]);
      if (blocksEnd < to) hourRanges.push([bucket, blocksEnd, to]);
    }
    for (const h of splitHours) hourRanges.push([splitLabel(h.hour), h.hour, h.hour + HOUR_MS]);
    // Whole minutes of the other cut hours inside the window, by bucket, leaving out the cut
    // minutes; and the short sides of the split hours.
    const otherCutHours = new Set([...cutHours].filter((h) => !splitAt.has(h)));
    const cutHourSpans = adjacentRanges(otherCutHours, HOUR_MS).map(([from, to]): [number, number] => [Math.max(from, Math.ceil(start / MINUTE_MS) * MINUTE_MS), Math.min(to, Math.floor(end / MINUTE_MS) * MINUTE_MS)]);
    const minuteRanges = bucketRanges(boundsMs, MINUTE_MS, cutMinutes, cutHourSpans);
    for (const h of splitHours) if (h.shortMinutes[0] < h.shortMinutes[1]) minuteRanges.push([splitLabel(h.hour), ...h.shortMinutes]);

    /** Moves `n` of a group's occurrences in a split hour from its long side's bucket to `bucket`. */
    const move = (r: IncidentKeyRow & { group_key?: string }, split: SplitHour, bucket: number, n: number) => {
      const g = out.get(r.group_key ?? incidentGroupKey({ component: r.component, error_code: r.error_key === '' ? null : r.error_key, cause_key: r.cause_key }));
      // The hour's rollup row, read first, holds every record of its minutes.
      if (!g || bucket === split.longSide) return;
      g.histogram[split.longSide]! -= n;
      g.histogram[bucket]! += n;
    };
    const rollupReads: { table: IncidentRollup; period: string; ranges: [number, number, number][]; text: (ms: number) => string }[] = [
      { table: 'incident_six_hours', period: ROLLUP_PERIODS.incident_six_hours.column, ranges: blockRanges, text: (ms: number) => hourOf(iso(ms)) },
      { table: 'incident_hours', period: ROLLUP_PERIODS.incident_hours.column, ranges: hourRanges, text: (ms: number) => hourOf(iso(ms)) },
      { table: 'incident_minutes', period: ROLLUP_PERIODS.incident_minutes.column, ranges: minuteRanges, text: (ms: number) => minuteOf(iso(ms)) },
    ];
    /** Counts a rollup row of range `label` into its bucket, or for a split hour into the side it belongs to. */
    const take = (table: string, r: Omit<RollupRow, 'bucket'>, label: number) => {
      const split = label >= buckets ? splitHours[label - buckets]! : undefined;
      if (!split) add(r, label);
      else if (table === 'incident_hours') add(r, split.longSide);
      else move(r, split, split.shortSide, Number(r.n));
    };
    this.rollupCache?.refresh();
    for (const { table, period, ranges, text } of rollupReads) {
      if (ranges.length === 0) continue;
      if (this.rollupCache) {
        const rollup = table;
        const periodMs = ROLLUP_PERIODS[rollup].ms;
        // Used at once: a refresh by another call may drop periods after any await.
        const rows = this.rollupCache.keptRows(rollup, ranges) ?? (await this.rollupCache.rowsOf(rollup, ranges, (from, to) => this.periodRows(rollup, period, text(from), text(to))));
        for (const [label, from, to] of ranges) {
          for (let at = from; at < to; at += periodMs) {
            for (const r of rows.get(at) ?? []) {
              if (q.component !== undefined && r.component !== q.component) continue;
              if (q.mcpOnly && r.is_mcp !== 1) continue;
              take(table, r, label);
            }
          }
        }
        continue;
      }
      const values = sql<{ column1: number; column2: string; column3: string }>`(values ${sql.join(ranges.map(([bucket, from, to]) => sql`(${sql.lit(bucket)}, ${text(from)}, ${text(to)})`))})`.as('r');
      const rollup = sql.ref(`${table}.${period}`);
      // The rollups have the same columns but their period's: one read for all.
      let read = (this.db as unknown as Kysely<any>)
        .selectFrom(values)
        .innerJoin(table as string, (join) => join.on(sql<SqlBool>`${rollup} >= ${sql.ref('r.column2')} and ${rollup} < ${sql.ref('r.column3')}`))
        .select([
          sql<number>`${sql.ref('r.column1')}`.as('bucket'),
          'component',
          'error_key',
          'cause_key',
          sql<number>`sum(${sql.ref('count')})`.as('n'),
          sql<string>`min(${sql.ref('first_seen')})`.as('first_seen'),
          sql<string>`max(${sql.ref('last_seen')})`.as('last_seen'),
          sql<number>`max(${sql.ref('level_rank')})`.as('level_rank'),
        ])
        .groupBy([sql`${sql.ref('r.column1')}`, 'component', 'error_key', 'cause_key']);
      if (q.component !== undefined) read = read.where('component', '=', q.component);
      if (q.mcpOnly) read = read.where('is_mcp', '=', 1);
      for (const r of (await read.execute()) as RollupRow[]) take(table, r, Number(r.bucket));
    }

    // The cut minutes, from the records, clipped to the window.
    const timeBounds = boundsMs.map(iso);
    const recordRanges = adjacentRanges(cutMinutes, MINUTE_MS)
      .map(([from, to]): [string, string] => [iso(Math.max(from, start)), iso(Math.min(to, end))])
      .filter(([from, to]) => from < to);
    if (recordRanges.length > 0) {
      // A join with the ranges as a VALUES list: an index search per range. As ORed conditions,
      // two dozen ranges made SQLite scan every warn-or-worse record instead.
      const bounds = recordRanges.flat();
      const filterArgs = windowArguments(q).slice(2);
      const { rows: records } = await this.cutMinuteStatements.run(this.db, `${windowShape(q)}${recordRanges.length}`, [...bounds, ...filterArgs], (db, ...args) => {
        const ranges = sql<{ column1: string; column2: string }>`(values ${sql.join(recordRanges.map((_, i) => sql`(${args[2 * i]}, ${args[2 * i + 1]})`))})`.as('r');
        const filters = { mcpOnly: q.mcpOnly, ...(q.component !== undefined ? { component: args[bounds.length] } : {}) };
        return db
          .selectFrom(ranges)
          .innerJoin('logs', (join) => join.on(sql<SqlBool>`${sql.ref('logs.ts')} >= ${sql.ref('r.column1')} and ${sql.ref('logs.ts')} < ${sql.ref('r.column2')}`))
          .select(['logs.ts', 'logs.component', sql<string>`coalesce(${sql.ref('logs.error_code')}, '')`.as('error_key'), 'logs.cause_key', 'logs.level_rank'])
          // No time range of the window's own: each cut range is inside it.
          .where((eb) => eb.and(this.recordConditions(eb, filters, 'logs')));
      });
      for (const r of records) {
        const j = splitAt.get(Date.parse(r.ts) - (Date.parse(r.ts) % HOUR_MS));
        if (j === undefined) add({ ...r, n: 1, first_seen: r.ts, last_seen: r.ts }, sortedPosition(timeBounds, r.ts));
        else move(r, splitHours[j]!, sortedPosition(timeBounds, r.ts), 1);
      }
    }
    return [...out.values()];
  }

  /**
   * From when every warn-or-worse record is still stored (epoch ms, an hour's start): retention
   * removed some before it (ADR 0018). -Infinity until a pass removed any.
   */
  private async recordsCompleteFrom(): Promise<number> {
    const value = await this.runtimeState.get(RECORDS_COMPLETE_FROM_KEY);
    return value === undefined ? Number.NEGATIVE_INFINITY : Date.parse(value);
  }

  /** A rollup's rows of the periods in [from, to) (period texts), each naming its period and its group's key: what the rollup cache keeps. */
  private async periodRows(rollup: IncidentRollup, period: string, from: string, to: string): Promise<(PeriodRollupRow & { period: string })[]> {
    const rows: (Omit<PeriodRollupRow, 'group_key'> & { period: string })[] = await (this.db as unknown as Kysely<any>)
      .selectFrom(rollup)
      .select([sql<string>`${sql.ref(period)}`.as('period'), 'component', 'error_key', 'cause_key', 'is_mcp', sql<number>`${sql.ref('count')}`.as('n'), 'first_seen', 'last_seen', 'level_rank'])
      .where(period, '>=', from)
      .where(period, '<', to)
      .execute();
    return rows.map((r) => ({ ...r, group_key: incidentGroupKey({ component: r.component, error_code: r.error_key === '' ? null : r.error_key, cause_key: r.cause_key }) }));
  }

  /**
   * The latest SAMPLE_SIZE records of each group in the window, one UNION ALL statement, compiled
   * once per shape: which filters the window has, which groups have no error code, how many groups.
   */
  private latestSamples(window: IncidentWindow, groups: readonly IncidentKey[]): Promise<QueryResult<SampleRow>> {
    // The window's values, then each group's, in the order the builder below takes them.
    const args = windowArguments(window);
    for (const g of groups) args.push(g.component, ...(g.error_code === null ? [] : [g.error_code]), g.cause_key ?? '');
    const shape = windowShape(window) + groups.map((g) => (g.error_code === null ? 'n' : 'e')).join('');
    return this.latestSampleStatements.run(this.db, shape, args, (db, ...args) => {
      const w = windowOf(window, args);
      let next = windowArguments(w).length;
      const arg = () => args[next++]!;
      const latest = (g: IncidentKey) => {
        const key: IncidentKey = { component: arg(), error_code: g.error_code === null ? null : arg(), cause_key: arg() };
        return db
          .selectFrom(
            db
              .selectFrom('logs')
              .select(['component', 'error_code', 'cause_key', 'log_id', 'message', 'ts', 'seq'])
              .where((eb) => eb.and([...this.windowConditions(eb, w), ...incidentGroupConditions(eb, this.engine, key)]))
              .orderBy('ts', 'desc')
              .orderBy('seq', 'desc')
              .limit(SAMPLE_SIZE)
              .as('s'),
          )
          .selectAll();
      };
      const [first, ...rest] = groups.map(latest);
      return rest.reduce((acc, q) => acc.unionAll(q), first!);
    });
  }

  /** Latest records (up to five, latest first) of each group: one statement of per-group "latest five" index walks. */
  async samples(window: IncidentWindow, groups: IncidentKey[]): Promise<Map<string, IncidentSample[]>> {
    const out = new Map<string, IncidentSample[]>();
    if (groups.length === 0) return out;
    // SQLite caps a compound SELECT at 500 terms; a 500-group page takes a few statements.
    const rows: SampleRow[] = [];
    for (let i = 0; i < groups.length; i += 100) rows.push(...(await this.latestSamples(window, groups.slice(i, i + 100))).rows);
    // UNION ALL does not promise row order: put each group's samples latest first again.
    rows.sort((a, b) => compareText(b.ts, a.ts) || Number(b.seq) - Number(a.seq));
    for (const r of rows) {
      const key = incidentGroupKey(r);
      const list = out.get(key) ?? [];
      list.push({ log_id: r.log_id, message: r.message });
      out.set(key, list);
    }
    return out;
  }
}

/** An hour one bucket boundary cuts: read whole into its long side's bucket, its short side moved. */
interface SplitHour {
  hour: number;
  longSide: number;
  shortSide: number;
  /** The short side's whole minutes, [from, to) in epoch ms. */
  shortMinutes: [number, number];
}

interface IncidentKeyRow {
  component: string;
  error_key: string;
  cause_key: string;
}

interface RollupRow {
  bucket: number | string;
  component: string;
  error_key: string;
  cause_key: string;
  n: number;
  first_seen: string;
  last_seen: string;
  level_rank: number;
}

/**
 * The periods (hours or minutes) of `spans` as [bucket, from, to) ranges, without the periods in
 * `skipped` (read finer). A period is in the bucket of the last boundary whose period is at or
 * before it: a period a boundary cuts counts in the bucket that begins inside it, unless skipped.
 */
function bucketRanges(boundsMs: readonly number[], periodMs: number, skipped: ReadonlySet<number>, spans: readonly [number, number][]): [number, number, number][] {
  const floor = (ms: number) => ms - (ms % periodMs);
  const ranges: [number, number, number][] = [];
  for (let bucket = 0; bucket <= boundsMs.length; bucket++) {
    const from = bucket === 0 ? Number.NEGATIVE_INFINITY : floor(boundsMs[bucket - 1]!);
    const to = bucket === boundsMs.length ? Number.POSITIVE_INFINITY : floor(boundsMs[bucket]!);
    for (const [spanFrom, spanTo] of spans) {
      let first = Math.max(from, spanFrom);
      let last = Math.min(to, spanTo);
      while (first < last && skipped.has(first)) first += periodMs;
      while (first < last && skipped.has(last - periodMs)) last -= periodMs;
      if (first < last) ranges.push([bucket, first, last]);
    }
  }
  return ranges;
}

/** How many of the sorted `bounds` are at or before `at`: the bucket index of `at`. */
function sortedPosition(bounds: readonly string[], at: string): number {
  let low = 0;
  let high = bounds.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (bounds[mid]! <= at) low = mid + 1;
    else high = mid;
  }
  return low;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A group's key as text, for maps of groups (an incident id encodes the same key). */
export function incidentGroupKey(g: IncidentKey): string {
  return JSON.stringify([g.component, g.error_code, g.cause_key ?? '']);
}

/**
 * Statements built and compiled once per shape (which filters a read has, how many groups or
 * ranges), then sent with each call's values: building a read with Kysely on every call took about
 * a third of it (docs/performance-notes.md). At most MAX_SHAPES per read; past it the cache starts over.
 */
class ShapedStatements<R> {
  private readonly byShape = new Map<string, (db: Kysely<Database>, ...args: string[]) => Promise<QueryResult<R>>>();

  run(db: Kysely<Database>, shape: string, args: string[], build: (db: Kysely<Database>, ...args: string[]) => Compilable<R>): Promise<QueryResult<R>> {
    let statement = this.byShape.get(shape);
    if (!statement) {
      if (this.byShape.size >= MAX_SHAPES) this.byShape.clear();
      statement = compiledOnce(build);
      this.byShape.set(shape, statement);
    }
    return statement(db, ...args);
  }
}

/** Which filters a window has: what a shaped statement's text depends on besides its values. */
function windowShape(window: IncidentWindow): string {
  return `${window.component !== undefined ? 'c' : '-'}${window.mcpOnly ? 'm' : '-'}`;
}

/** A window's values, in the order windowOf takes them back. */
function windowArguments(window: IncidentWindow): string[] {
  return [window.windowStart, window.windowEnd, ...(window.component !== undefined ? [window.component] : [])];
}

/** The window of `shape`'s filters with its values from `args` (windowArguments' order): in a shaped statement's builder, placeholders. */
function windowOf(shape: IncidentWindow, args: readonly string[]): IncidentWindow {
  return { windowStart: args[0]!, windowEnd: args[1]!, mcpOnly: shape.mcpOnly === true, ...(shape.component !== undefined ? { component: args[2]! } : {}) };
}
