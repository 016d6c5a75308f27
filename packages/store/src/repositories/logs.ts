/**
 * Runtime log records, and the incident rollups kept with them: a warn-or-worse record, its hour
 * in `incident_hours`, its minute in `incident_minutes` and its six-hour block in
 * `incident_six_hours` commit together, so the rollups always agree with the records.
 */
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database, LogsTable } from '../schema';
import { executorOf, type StoreTx } from '../store-tx';
import type { ChangeFeedRepository } from '../change-feed';
import { INCIDENT_MIN_LEVEL_RANK, sixHourBlockOf } from './incidents';
import { ROLLUP_PERIODS } from './incident-rollup-periods';
import type { StoreEngine } from '../engines/engine';
import { insertRows } from './insert-rows';

export type NewLogRecord = Omit<Insertable<LogsTable>, 'seq'>;

export class LogRepository {
  private rollupWritten: (() => void) | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
    private readonly engine: StoreEngine,
  ) {}


  /** Calls `hook` after each warn-or-worse record's rollup writes (the rollup rows in memory count them). */
  afterRollupWrites(hook: () => void): void {
    this.rollupWritten = hook;
  }

  /**
   * Writes in the caller's transaction when given, so a record commits with what it describes. A
   * warn-or-worse record is an incident's occurrence: an 'incidents' change.
   */
  async write(record: NewLogRecord, tx?: StoreTx): Promise<void> {
    const on = tx ? executorOf(tx) : this.db;
    if (record.level_rank < INCIDENT_MIN_LEVEL_RANK) {
      await insertRows(this.engine, on, 'logs', [record]);
      return;
    }
    const writeWithRollups = async (trx: Kysely<Database>) => {
      await insertRows(this.engine, trx, 'logs', [record]);
      for (const table of PREFIX_ROLLUPS) {
        const { column, textLength } = ROLLUP_PERIODS[table];
        await countInRollup(trx, table, column, record.ts.slice(0, textLength), record);
      }
      // Six-hour blocks are not a prefix of the time: their period is computed, not cut.
      await countInRollup(trx, 'incident_six_hours', ROLLUP_PERIODS.incident_six_hours.column, sixHourBlockOf(record.ts), record);
    };
    await this.changes.write('incidents', tx, writeWithRollups);
    this.rollupWritten?.();
  }

  /** Recomputes the rollup from the records (after records were deleted, and when it is created). */
  rebuildIncidentRollup(tx?: StoreTx): Promise<void> {
    return rebuildIncidentRollup(tx ? executorOf(tx) : this.db);
  }
}

/** The rollups built from the records whose period is a prefix of the record's time. */
const PREFIX_ROLLUPS = ['incident_hours', 'incident_minutes'] as const;

/** One more record in its period's row of a rollup (inserted, or counted into the row already there). */
async function countInRollup(trx: Kysely<Database>, table: 'incident_hours' | 'incident_minutes' | 'incident_six_hours', periodColumn: string, period: string, record: NewLogRecord): Promise<void> {
  const rollup = trx as unknown as Kysely<any>;
  await rollup
    .insertInto(table)
    .values({
      [periodColumn]: period,
      component: record.component,
      error_key: record.error_code ?? '',
      cause_key: record.cause_key ?? '',
      is_mcp: record.is_mcp ?? 0,
      count: 1,
      first_seen: record.ts,
      last_seen: record.ts,
      level_rank: record.level_rank,
    })
    .onConflict((oc) =>
      oc.columns([periodColumn, 'component', 'error_key', 'cause_key']).doUpdateSet({
        count: sql`${sql.ref(`${table}.count`)} + 1`,
        // CASE rather than two-argument MIN/MAX, which PostgreSQL spells LEAST/GREATEST.
        first_seen: sql`case when excluded.first_seen < ${sql.ref(`${table}.first_seen`)} then excluded.first_seen else ${sql.ref(`${table}.first_seen`)} end`,
        last_seen: sql`case when excluded.last_seen > ${sql.ref(`${table}.last_seen`)} then excluded.last_seen else ${sql.ref(`${table}.last_seen`)} end`,
        level_rank: sql`case when excluded.level_rank > ${sql.ref(`${table}.level_rank`)} then excluded.level_rank else ${sql.ref(`${table}.level_rank`)} end`,
      }),
    )
    .execute();
}

/** The rollups computed again from the records (the six-hour blocks from the hours). */
export async function rebuildIncidentRollup(db: Kysely<any>): Promise<void> {
  await rebuildIncidentHours(db);
  await rebuildIncidentMinutes(db);
  await rebuildIncidentSixHours(db);
}

async function rebuildRollup(db: Kysely<any>, table: (typeof PREFIX_ROLLUPS)[number]): Promise<void> {
  const { column: period, textLength: length } = ROLLUP_PERIODS[table];
  await db.deleteFrom(table).execute();
  await sql`
    insert into ${sql.table(table)} (${sql.ref(period)}, component, error_key, cause_key, is_mcp, count, first_seen, last_seen, level_rank)
    select substr(ts, 1, ${sql.lit(length)}), component, coalesce(error_code, ''), cause_key, max(is_mcp), count(*), min(ts), max(ts), max(level_rank)
    from logs
    where level_rank >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}
    group by substr(ts, 1, ${sql.lit(length)}), component, coalesce(error_code, ''), cause_key
  `.execute(db);
}

export const rebuildIncidentHours = (db: Kysely<any>): Promise<void> => rebuildRollup(db, 'incident_hours');
export const rebuildIncidentMinutes = (db: Kysely<any>): Promise<void> => rebuildRollup(db, 'incident_minutes');

/**
 * The six-hour blocks computed again from `incident_hours`: all of them, or those in [fromBlock,
 * toBlock) (after retention removed the hours before a time inside a block).
 */
export async function rebuildIncidentSixHours(db: Kysely<any>, range?: { fromBlock: string; toBlock: string }): Promise<void> {
  let removal = db.deleteFrom('incident_six_hours');
  if (range) removal = removal.where('block', '>=', range.fromBlock).where('block', '<', range.toBlock);
  await removal.execute();
  const hourOfDay = sql`substr(${sql.ref('hour')}, 12, 2)`;
  // The block of an hour's text, in SQL both engines read alike.
  const block = sql`substr(${sql.ref('hour')}, 1, 11) || case when ${hourOfDay} < '06' then '00' when ${hourOfDay} < '12' then '06' when ${hourOfDay} < '18' then '12' else '18' end`;
  await sql`
    insert into incident_six_hours (block, component, error_key, cause_key, is_mcp, count, first_seen, last_seen, level_rank)
    select ${block}, component, error_key, cause_key, max(is_mcp), sum(${sql.ref('count')}), min(first_seen), max(last_seen), max(level_rank)
    from incident_hours
    ${range ? sql`where ${sql.ref('hour')} >= ${range.fromBlock} and ${sql.ref('hour')} < ${range.toBlock}` : sql``}
    group by ${block}, component, error_key, cause_key
  `.execute(db);
}
