/**
 * The shared engine: several server processes on one PostgreSQL database, each with a pool of
 * connections, so writers are concurrent. Claims skip rows another server holds, the reset lock is a
 * row lock (FOR SHARE), one server at a time evaluates alerts (an advisory lock), and the change row
 * notifies listeners. Batched writes travel as one JSON or array parameter, so each statement has
 * one text whatever its row count, prepared once per connection.
 */
import { sql, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../schema';
import { compiledOnce } from '../../compiled-once';
import { prepared, sentWithNext } from '../../prepared-statements';
import { MAX_ROWS_PER_STATEMENT } from '../../repositories/statement-size';
import { CHANGE_CHANNEL } from '../../change-feed';
import type { EventWithDeliveryRows, StoreEngine } from '../engine';
import { readsByIdsParameter } from '../reads-of-ids';
import { claimDueUnlessLockedOnPostgres, markDeliveredByArrays } from './claim';
import { insertEventsWithDeliveries, insertFromJson, rowsAsJson } from './json-rows';
import { postgresMigrationSteps } from './migrations/index';
import { WRITE_GUARD_REFUSED } from './migrations/013_write_guard';
import { POSTGRES_PARALLEL_GROUPS } from './open-postgres';
import { ensurePostgresPayloadIndex, postgresPayloadCondition } from './payload-search';

/**
 * SQLSTATEs of a lost or refused connection, or a server out of room for this one: admin/crash
 * shutdown, cannot connect now, connection exceptions, insufficient resources (class 53: too many
 * connections, for the server or the role; disk full; out of memory).
 */
const CONNECTION_LOST_STATES = /^(57P0[123]|08...|53...)$/;
/** SQLSTATEs a retry resolves: serialization failure, deadlock detected. */
const CONFLICT_STATES = new Set(['40001', '40P01']);
/** unique_violation: another write took the key first. */
const UNIQUE_VIOLATION = '23505';
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
/** node-postgres's own words for a connection it lost or could not get from the pool in time. */
const CONNECTION_LOST_MESSAGES = /^Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/;

/** Now on the database's clock (not this host's), in the text form of every other timestamp here. */
const now = (offsetMs = 0) =>
  sql<string>`to_char((clock_timestamp() + make_interval(secs => ${offsetMs / 1000})) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Settling several runs: one array parameter, one text for any count. The status is tested through
 * an expression no index matches: the planner otherwise intersects the ids with runs_status's whole
 * 'running' range, which under load is full of entries of runs settled since the last vacuum.
 */
const settleByArray = compiledOnce((db, settledAt: string, runIds: string[]) =>
  sql<{ run_id: string; status: 'completed' | 'failed' }>`
    update runs set settled_at = ${settledAt},
      status = case when exists (select 1 from dead_letters where dead_letters.run_id = runs.run_id and dead_letters.redriven_at is null) then 'failed' else 'completed' end
    where run_id = any(${runIds}::text[]) and coalesce(status, '') = 'running'
      and not exists (select 1 from deliveries where deliveries.run_id = runs.run_id and deliveries.status in ('pending', 'in_progress'))
    returning run_id, status${prepared}`,
);

/** A key's value, holding a share lock on its row until the transaction ends. */
const readValueForShare = compiledOnce((db, key: string) => db.selectFrom('runtime_state').select('value').where('key', '=', key).forShare().modifyEnd(prepared));

/** A held key's row (FOR SHARE) and the rows of `alsoKeys`, read as they are, in one statement. */
const readHeldWith = compiledOnce(
  (db, key: string, alsoKeys: string[]) =>
    sql<{ key: string; value: string }>`with held as (select key, value from runtime_state where key = ${key} for share)
      select key, value from held
      union all select key, value from runtime_state where key = any(${alsoKeys}::text[]) and key <> ${key}${prepared}`,
);

/** refuse_writes_while_locked (migration 013), sent with the transaction's next statement. */
const refuseWithNext = compiledOnce(
  (_db, key: string, nowIso: string, refuseKey: string, refuseValue: string) =>
    sql`select refuse_writes_while_locked(${key}, ${nowIso}, ${refuseKey}, ${refuseValue})${sentWithNext}${prepared}`,
);

/**
 * The change row. The notification rides on the row's statement: PostgreSQL sends it only if the
 * transaction commits. The row goes out with the commit (sentWithNext).
 */
const insertChangeNotifying = compiledOnce((db, kinds: string, serverId: string | null) =>
  db
    .insertInto('changes')
    .values({ kinds, server_id: serverId, created_at: now() })
    .returning(sql<string>`pg_notify(${CHANGE_CHANNEL}, '')`.as('notified'))
    .modifyEnd(sentWithNext)
    .modifyEnd(prepared),
);

/** Reads of rows by a list of ids: the ids travel as one array (`= any`). */
const readByArray = readsByIdsParameter((column, ids) => sql<SqlBool>`${sql.ref(column)} = any(${ids}::text[])`, (query) => query.modifyEnd(prepared));

/**
 * The rows of events and their deliveries for one statement: when each table's rows fit one
 * statement and travel as JSON. A delivery's event_seq comes from its event's insert, so its row
 * carries only the event's id and time.
 */
function eventsWithDeliveriesAsJson(items: readonly EventWithDeliveryRows[]) {
  const deliveries = items.flatMap(({ event, deliveries }) => deliveries.map((d) => ({ ...d, event_id: event.event_id, event_created_at: event.created_at })));
  if (items.length > MAX_ROWS_PER_STATEMENT || deliveries.length === 0 || deliveries.length > MAX_ROWS_PER_STATEMENT) return undefined;
  const eventRows = rowsAsJson(items.map((item) => item.event));
  const deliveryRows = eventRows && rowsAsJson(deliveries);
  return eventRows && deliveryRows ? { events: eventRows, deliveries: deliveryRows } : undefined;
}

/**
 * Whether `error` is refuseWithNextWhileLocked's refusal (the lock was held or the refused value
 * set): nothing of the transaction was applied, and the caller may run it again with a read that
 * says which. No other engine has the pipelined guard, so no other error is one.
 */
export function refusedByGuard(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === WRITE_GUARD_REFUSED;
}

export const postgresEngine: StoreEngine = {
  name: 'postgres',
  capabilities: { sharedByProcesses: true, concurrentWriters: true, pipelinedGuard: true },
  groupCommitParallelism: POSTGRES_PARALLEL_GROUPS,
  // Another server's deliveries left to claim wait for this process's read of the feed: read soon
  // after a notification.
  changeReadSpacingMs: 10,

  /**
   * A deadlock or serialization failure is busy; a connection that was terminated, refused or
   * lost (a restart, pg_terminate_backend), or that the server had no room for (max_connections, a
   * role's connection limit), is unavailable.
   */
  classifyError(err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string') {
      if (CONFLICT_STATES.has(code)) return 'busy';
      if (code === UNIQUE_VIOLATION) return 'duplicate';
      if (CONNECTION_LOST_STATES.test(code) || SOCKET_ERRORS.has(code)) return 'unavailable';
    }
    const message = err instanceof Error ? err.message : '';
    return CONNECTION_LOST_MESSAGES.test(message) ? 'unavailable' : 'other';
  },

  now,

  autoIncrementKey: { type: 'bigserial', primaryKey: (c) => c.primaryKey() },
  // A prepared statement is planned without its values' help unless PostgreSQL chooses otherwise.
  unplannedValue: (value) => sql`${value}`,
  extraMigrationSteps: postgresMigrationSteps,

  claimDueUnlessLocked: claimDueUnlessLockedOnPostgres,

  async markDelivered(trx, owner, held, nowIso) {
    const ids = held.map((l) => l.delivery_id);
    const { rows } = await markDeliveredByArrays(trx, nowIso, ids, held.map((l) => l.attempts), owner);
    return rows.map((r) => r.delivery_id);
  },

  async insertAsOne<R>(trx: Kysely<Database>, table: keyof Database & string, rows: readonly object[], { returning = [], withNext = false }: { returning?: readonly string[]; withNext?: boolean } = {}) {
    const asJson = rowsAsJson(rows);
    return asJson ? insertFromJson<R>(trx, table, asJson, returning, { withNext }) : undefined;
  },

  async insertEventsWithDeliveries(trx, items) {
    const together = eventsWithDeliveriesAsJson(items);
    return together ? insertEventsWithDeliveries(trx, together.events, together.deliveries) : undefined;
  },

  async settleRunsWhenQuiet(trx, runIds, settledAt) {
    return (await settleByArray(trx, settledAt, runIds as string[])).rows;
  },

  readByIds(db, read, column, ids) {
    return readByArray(db, read, column, ids);
  },

  /** One statement per table: PostgreSQL does not hold this process's event loop while it deletes. */
  async deleteAll(trx, table, scope = (q) => q) {
    const res = await scope(trx.deleteFrom(table)).executeTakeFirst();
    return Number((res as { numDeletedRows: bigint }).numDeletedRows);
  },

  async readHolding(trx, key, alongKeys) {
    if (alongKeys.length === 0) return { value: (await readValueForShare(trx, key)).rows[0]?.value };
    const { rows } = await readHeldWith(trx, key, [...alongKeys]);
    const along = new Map<string, string | undefined>();
    for (const also of alongKeys) if (also !== key) along.set(also, rows.find((row) => row.key === also)?.value);
    return { value: rows.find((row) => row.key === key)?.value, along };
  },

  async refuseWithNextWhileLocked(trx, key, nowIso, refuseKey, refuseValue) {
    await refuseWithNext(trx, key, nowIso, refuseKey, refuseValue);
  },

  skippingLockedRows: <Q extends SelectQueryBuilder<any, any, any>>(query: Q) => query.forUpdate().skipLocked() as Q,

  async tryTransactionLock(trx, key) {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${key}) as locked`.execute(trx);
    return rows[0]?.locked === true;
  },

  async insertChange(trx, kinds, serverId) {
    await insertChangeNotifying(trx, kinds, serverId);
  },

  payloadCondition: postgresPayloadCondition,
  // Pages are read as rows: writing their records here cost PostgreSQL more than mapping them costs a server.
  eventRecordJson: undefined,
  ensurePayloadIndex: ensurePostgresPayloadIndex,
  /** The tables (with their indexes and TOAST) of the schema the store runs in. */
  async storage(db) {
    const { rows } = await sql<{ bytes: string | null }>`
      select sum(pg_total_relation_size(c.oid))::text as bytes from pg_class c
      where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace`.execute(db);
    return { bytes: Number(rows[0]?.bytes ?? 0), freeBytes: 0, reclaim: 'reused' };
  },

  /** Autovacuum makes removed rows' room reusable; nothing to give back by hand. */
  reclaimSpace: async () => 0,
};
