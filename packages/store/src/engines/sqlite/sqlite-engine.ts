/**
 * The embedded engine: one file in the data folder, one process (the folder lock), one writer at a
 * time. Its members take the portable path: statements are VALUES lists and `in (…)` lists within
 * SQLite's bound-parameter limit (a read by ids takes them as one JSON array), and there are no row
 * locks to take, because no other writer can come between a transaction's read and its write.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../schema';
import { compiledOnce } from '../../compiled-once';
import { prepared } from '../../prepared-statements';
import { eventRecordJson } from '../../repositories/event-record-json';
import { MAX_ROWS_PER_STATEMENT } from '../../repositories/statement-size';
import { lighterWritesSteps } from './lighter-writes-migration';
import { sparseIndexesSteps } from '../../migrations/sparse-indexes';
import { unindexedText } from '../../unindexed-text';
import type { StoreEngine } from '../engine';
import { readsByIdsParameter } from '../reads-of-ids';
import { claimDueUnlessLockedOnSqlite } from './claim';
import { ensureSqlitePayloadIndex, sqlitePayloadCondition } from './payload-search';
import { SQLITE_RECORD_JSON } from './record-json-dialect';
import { valuesInsert } from './values-insert';

/** Rows one cleanup statement deletes before the event loop gets a turn. */
const DELETE_CHUNK_ROWS = 2000;

const now = (offsetMs = 0) => sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`${offsetMs / 1000} seconds`})`;

/** Reads of rows by a list of ids: the ids travel as one JSON array, whatever their count. */
const readByJson = readsByIdsParameter((column, ids) => sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${ids}))`);

const readValue = compiledOnce((db, key: string) => db.selectFrom('runtime_state').select('value').where('key', '=', key).modifyEnd(prepared));

const insertChange = compiledOnce((db, kinds: string, serverId: string | null) => db.insertInto('changes').values({ kinds, server_id: serverId, created_at: now() }));

/** PRAGMA auto_vacuum's value for INCREMENTAL. */
const INCREMENTAL_AUTO_VACUUM = 2;

export const sqliteEngine: StoreEngine = {
  name: 'sqlite',
  capabilities: { sharedByProcesses: false, concurrentWriters: false, pipelinedGuard: false },
  groupCommitParallelism: 1,
  // Only this process writes deliveries, and a read of the feed holds the one connection its
  // writes need: read it less often than on PostgreSQL.
  changeReadSpacingMs: 25,

  /** "database is locked" (SQLITE_BUSY and its extended codes) passes once the writer ahead is done. */
  classifyError(err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return 'other';
    if (code.startsWith('SQLITE_BUSY')) return 'busy';
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? 'duplicate' : 'other';
  },

  now,

  autoIncrementKey: { type: 'integer', primaryKey: (c) => c.primaryKey().autoIncrement() },
  // Unary plus changes no value (text stays text) and keeps the comparison an index search.
  unplannedValue: (value) => sql`+${value}`,
  // PostgreSQL took 028's step in 011.
  extraMigrationSteps: { '028_sqlite_sparse_indexes': sparseIndexesSteps(), '029_sqlite_lighter_writes': lighterWritesSteps() },

  claimDueUnlessLocked: claimDueUnlessLockedOnSqlite,

  async markDelivered(trx, owner, held, nowIso) {
    const rows = await trx
      .updateTable('deliveries')
      .set({ status: 'delivered', lease_owner: null, lease_expires_at: null, updated_at: nowIso })
      // SQLite walks the in-progress rows (a dispatcher's few) of the status index and keeps this
      // batch's ids and attempts: a key search per id was slower (docs/performance-notes.md).
      .where('delivery_id', 'in', held.map((l) => l.delivery_id))
      .where(({ eb, refTuple, tuple }) => eb(refTuple('delivery_id', 'attempts'), 'in', held.map((l) => tuple(l.delivery_id, l.attempts))))
      .where('lease_owner', '=', owner)
      .where('status', '=', 'in_progress')
      .returning('delivery_id')
      .execute();
    return rows.map((r) => r.delivery_id);
  },

  async insertAsOne<R>(trx: Kysely<Database>, table: keyof Database & string, rows: readonly object[], { returning = [] }: { returning?: readonly string[] } = {}) {
    const insert = valuesInsert<R>(table, rows, returning);
    return insert ? (await trx.executeQuery(insert)).rows : undefined;
  },
  insertEventsWithDeliveries: async () => undefined,

  async settleRunsWhenQuiet(trx, runIds, settledAt) {
    const settled: { run_id: string; status: 'completed' | 'failed' }[] = [];
    for (let i = 0; i < runIds.length; i += MAX_ROWS_PER_STATEMENT) {
      const rows = await trx
        .updateTable('runs')
        .set((eb) => ({
          status: eb
            .case()
            .when(eb.exists(eb.selectFrom('dead_letters').select('dead_letter_id').whereRef('dead_letters.run_id', '=', 'runs.run_id').where('dead_letters.redriven_at', 'is', null)))
            .then('failed')
            .else('completed')
            .end(),
          settled_at: settledAt,
        }))
        .where('run_id', 'in', runIds.slice(i, i + MAX_ROWS_PER_STATEMENT))
        .where(unindexedText('status'), '=', 'running')
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('deliveries').select('delivery_id').whereRef('deliveries.run_id', '=', 'runs.run_id').where('deliveries.status', 'in', ['pending', 'in_progress']))),
        )
        .returning(['run_id', 'status'])
        .execute();
      for (const r of rows) settled.push({ run_id: r.run_id, status: r.status as 'completed' | 'failed' });
    }
    return settled;
  },

  readByIds(db, read, column, ids) {
    return readByJson(db, read, column, JSON.stringify(ids));
  },

  async deleteAll(trx, table, scope = (q) => q) {
    // In chunks, yielding between them: one DELETE of a million rows would hold the event loop for
    // seconds. Still the caller's one transaction: all of it or, on any failure, none.
    let deleted = 0;
    for (;;) {
      const chunk = scope(trx.selectFrom(table).select(sql`rowid`.as('r')).limit(DELETE_CHUNK_ROWS));
      const res = await trx.deleteFrom(table).where(sql`rowid`, 'in', chunk).executeTakeFirst();
      const n = Number((res as { numDeletedRows: bigint }).numDeletedRows);
      deleted += n;
      if (n < DELETE_CHUNK_ROWS) return deleted;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  },

  /** One writer at a time: a plain read holds as well as a lock would. */
  async readHolding(trx, key) {
    return { value: (await readValue(trx, key)).rows[0]?.value };
  },

  async refuseWithNextWhileLocked() {
    throw new Error('refuseWithNextWhileLocked needs capabilities.pipelinedGuard; read with getHoldingChanges');
  },

  skippingLockedRows: (query) => query,
  /** One process owns the store: the lock is always its own. */
  tryTransactionLock: async () => true,

  async insertChange(trx: Kysely<Database>, kinds: string, serverId: string | null) {
    await insertChange(trx, kinds, serverId);
  },

  payloadCondition: sqlitePayloadCondition,
  eventRecordJson: eventRecordJson(SQLITE_RECORD_JSON),
  ensurePayloadIndex: ensureSqlitePayloadIndex,
  async storage(db) {
    const pragma = async (name: string) => Number(Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0]);
    const pageSize = await pragma('page_size');
    return {
      bytes: (await pragma('page_count')) * pageSize,
      freeBytes: (await pragma('freelist_count')) * pageSize,
      reclaim: (await pragma('auto_vacuum')) === INCREMENTAL_AUTO_VACUUM ? 'incremental' : 'vacuum_needed',
    };
  },

  async reclaimSpace(db, maxPages) {
    const free = async (on: Kysely<Database>) => Number(Object.values((await sql.raw('pragma freelist_count').execute(on)).rows[0] as object)[0]);
    const { given, left } = await db.transaction().execute(async (trx) => {
      const before = await free(trx);
      // The driver steps a statement once, and each step of incremental_vacuum gives back one
      // page: one statement per page, all in one transaction (one sync). A no-op on a file
      // without incremental auto-vacuum (see open-sqlite.ts).
      for (let i = 0; i < Math.min(before, maxPages); i++) await sql.raw('pragma incremental_vacuum(1)').execute(trx);
      const after = await free(trx);
      return { given: before - after, left: after };
    });
    // The pages moved went through the write-ahead log, which keeps its size once grown: with
    // nothing left to give back, it is written into the file and cut back to nothing.
    if (given > 0 && left === 0) await sql.raw('pragma wal_checkpoint(TRUNCATE)').execute(db);
    return given;
  },
};
