/**
 * The incident rollups' rows by period (hours, six-hour blocks, minutes), kept in memory on SQLite.
 * `runtime.incidents` is polled, and a 7- or 30-day window is almost all periods that no longer
 * change: reading their rows from memory instead of walking them again on every call took most
 * of a window's time (docs/performance-notes.md, "Rollup rows kept in memory"; decision 0009).
 *
 * The rows in memory stay exactly what the tables hold:
 * - every write this connection makes to a rollup table names its period in a TEMP table (TEMP
 *   triggers on the tables, so whatever writes, a raw statement included, is seen); those periods
 *   are dropped before the next read, and read again;
 * - a commit by any other connection to the file (another process: the CLI, a second server)
 *   moves `PRAGMA data_version`, and every period is dropped.
 * A write in a transaction that rolls back takes its TEMP row with it, as it takes the rollup
 * change. PostgreSQL has no such counter across servers: its window reads stay in SQL.
 */
import type { Database as SqliteConnection } from 'better-sqlite3';
import { adjacentRanges, ROLLUP_PERIODS, type IncidentRollup } from './incident-rollup-periods';

/** One rollup row of a period: a group's occurrences in it. */
export interface PeriodRollupRow {
  component: string;
  error_key: string;
  cause_key: string;
  is_mcp: number;
  n: number;
  first_seen: string;
  last_seen: string;
  level_rank: number;
  /** The group's key (incidentGroupKey), made once when the row is read. */
  group_key: string;
}

/**
 * Rollup writes (records) between two drains of the periods written, at most: without window
 * reads for a long time (nobody looking at incidents) the TEMP table would otherwise grow by every
 * minute that had a record.
 */
const WRITES_BETWEEN_DRAINS = 4096;
/** Periods kept per rollup before they are all dropped and read again as needed (20,000 hours: about 2.3 years). */
const MAX_PERIODS = 20_000;

/** The start (epoch ms) of the period an hour text ("YYYY-MM-DDTHH") or a minute text ("YYYY-MM-DDTHH:MM") names. */
const periodStart = (text: string) => Date.parse(text.length === ROLLUP_PERIODS.incident_minutes.textLength ? `${text}:00.000Z` : `${text}:00:00.000Z`);

/** Creates the TEMP table and triggers that name the periods this connection writes. */
export function watchRollupWrites(raw: SqliteConnection): void {
  // No unique key: a trigger's OR IGNORE gives way to the outer statement's conflict handling
  // (the rollups' upserts), so a period already named is skipped by a lookup instead.
  raw.exec('create temp table if not exists rollup_writes (rollup text not null, period text not null)');
  raw.exec('create index if not exists temp.rollup_writes_period on rollup_writes (rollup, period)');
  for (const [rollup, { column }] of Object.entries(ROLLUP_PERIODS)) {
    const note = (row: 'new' | 'old') =>
      `insert into rollup_writes select '${rollup}', ${row}.${column} where not exists (select 1 from rollup_writes where rollup = '${rollup}' and period = ${row}.${column});`;
    raw.exec(`create temp trigger if not exists ${rollup}_inserted after insert on main.${rollup} begin ${note('new')} end`);
    raw.exec(`create temp trigger if not exists ${rollup}_updated after update on main.${rollup} begin ${note('old')} ${note('new')} end`);
    raw.exec(`create temp trigger if not exists ${rollup}_deleted after delete on main.${rollup} begin ${note('old')} end`);
  }
}

export class IncidentRollupCache {
  private readonly periods: Record<IncidentRollup, Map<number, PeriodRollupRow[]>> = { incident_hours: new Map(), incident_six_hours: new Map(), incident_minutes: new Map() };
  private seenVersion: number | undefined;
  /** Moves whenever periods are dropped: a read that began before must not put its rows in memory. */
  private generation = 0;
  private writesSinceRefresh = 0;
  private readonly written: () => { rollup: IncidentRollup; period: string }[];
  private readonly forgetWritten: () => void;

  /** `raw` must be the connection the store writes with, after watchRollupWrites ran on it. */
  constructor(
    raw: SqliteConnection,
    private readonly otherConnectionsVersion: () => number,
  ) {
    const written = raw.prepare('select rollup, period from rollup_writes');
    const forget = raw.prepare('delete from rollup_writes');
    this.written = () => written.all() as { rollup: IncidentRollup; period: string }[];
    this.forgetWritten = () => void forget.run();
  }

  /** Drops what was written since the last call: the periods this connection wrote, or everything after another connection's commit. */
  refresh(): void {
    this.writesSinceRefresh = 0;
    const version = this.otherConnectionsVersion();
    const writes = this.written();
    if (writes.length > 0) this.forgetWritten();
    if (writes.length === 0 && version === this.seenVersion) return;
    this.generation++;
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      for (const periods of Object.values(this.periods)) periods.clear();
      return;
    }
    for (const { rollup, period } of writes) this.periods[rollup].delete(periodStart(period));
  }

  /** Counts one record's rollup writes; every WRITES_BETWEEN_DRAINS of them the periods written are drained (see refresh). */
  countWrite(): void {
    if (++this.writesSinceRefresh >= WRITES_BETWEEN_DRAINS) this.refresh();
  }

  /**
   * The rows in memory by period start when every period of `ranges` is there (the steady state
   * of a polled window): no copy, so use it before anything else runs (no await in between).
   */
  keptRows(rollup: IncidentRollup, ranges: readonly [number, number, number][]): ReadonlyMap<number, readonly PeriodRollupRow[]> | undefined {
    const kept = this.periods[rollup];
    const periodMs = ROLLUP_PERIODS[rollup].ms;
    for (const [, from, to] of ranges) for (let at = from; at < to; at += periodMs) if (!kept.has(at)) return undefined;
    return kept;
  }

  /**
   * The rows of every period in `ranges` ([label, from, to) in epoch ms, whole periods of the
   * rollup) by period start, reading the periods not in memory with `read` (its rows name
   * their period), one call per run of adjacent missing periods. Call refresh() first. What a read
   * returns is kept only if nothing was dropped while it ran (another call's refresh may have
   * dropped a period this read saw before a write to it).
   */
  async rowsOf(
    rollup: IncidentRollup,
    ranges: readonly [number, number, number][],
    read: (fromMs: number, toMs: number) => Promise<(PeriodRollupRow & { period: string })[]>,
  ): Promise<ReadonlyMap<number, readonly PeriodRollupRow[]>> {
    const kept = this.periods[rollup];
    const periodMs = ROLLUP_PERIODS[rollup].ms;
    if (kept.size > MAX_PERIODS) {
      kept.clear();
      this.generation++;
    }
    // The rows this call uses, taken now: a refresh while a read below runs may drop periods from memory.
    const view = new Map<number, readonly PeriodRollupRow[]>();
    const missing = new Set<number>();
    for (const [, from, to] of ranges) {
      for (let at = from; at < to; at += periodMs) {
        const rows = kept.get(at);
        if (rows) view.set(at, rows);
        else missing.add(at);
      }
    }
    if (missing.size === 0) return view;
    const generation = this.generation;
    const fresh = new Map<number, PeriodRollupRow[]>();
    for (const [from, to] of adjacentRanges(missing, periodMs)) {
      for (let at = from; at < to; at += periodMs) fresh.set(at, []);
      for (const row of await read(from, to)) {
        const { period, ...counts } = row;
        fresh.get(periodStart(period))?.push(counts);
      }
    }
    for (const [at, rows] of fresh) {
      view.set(at, rows);
      if (generation === this.generation) kept.set(at, rows);
    }
    return view;
  }
}
