/**
 * The seam between the store and a database engine. Repositories write their statements once, in
 * Kysely, where both engines take the same SQL; where an engine needs other SQL or another strategy
 * (a claim, a batched write, a lock, the clock, a driver's error codes, extra migration steps), the
 * repository calls its `StoreEngine`. Each engine lives in a folder of its own under `engines/`
 * with the modules only it uses (opening, driver quirks). See docs/decisions/0016-storage-engines.md.
 *
 * The runtime and the server never ask which engine they run on: they read `StoreCapabilities`.
 */
import type { Expression, Kysely, Migration, RawBuilder, SelectQueryBuilder, Selectable, SqlBool } from 'kysely';
import type { PayloadCondition } from '@switchboard/contract';
import type { Database, EventsTable } from '../schema';

/** A label for logs, health checks and test fixtures; behaviour follows the engine's members and capabilities. */
export type Engine = 'sqlite' | 'postgres';

/** What the runtime and the server may rely on, named for the behaviour rather than the engine. */
export interface StoreCapabilities {
  /**
   * Several processes commit to the store at once (PostgreSQL). False where one process holds the
   * store alone (SQLite's folder lock): a lease or a runtime state left behind at boot is a dead
   * process's, and work another server would finish is this one's to finish.
   */
  readonly sharedByProcesses: boolean;
  /**
   * Writes from different connections run concurrently, so row locks decide who waits: the reset
   * lock must be held by a row lock (FOR SHARE) rather than by the single writer.
   */
  readonly concurrentWriters: boolean;
  /**
   * A guarded write may send its guard with its first statement (`refuseWithNextWhileLocked`) and
   * be refused when the guard fails, instead of reading the guard first.
   */
  readonly pipelinedGuard: boolean;
}

/**
 * What a failed store call means: busy and unavailable are retryable; duplicate is a unique key
 * that another write took first (a repository turns it into its own clash error).
 */
export type StoreErrorKind = 'busy' | 'unavailable' | 'duplicate' | 'other';

/** An auto-incrementing integer key column, as each engine declares it in a migration. */
export interface AutoIncrementKey {
  readonly type: 'integer' | 'bigserial';
  /** The column's constraints (the callback Kysely's addColumn takes). */
  primaryKey(column: any): any;
}

/** How much room the store takes, and how much of it retention can give back. */
export interface StorageReading {
  /** The store's size on disk: the SQLite file, or the PostgreSQL tables and indexes of this schema. */
  bytes: number;
  /** Room inside it that is free for reuse (SQLite's free pages); 0 where the engine does not say. */
  freeBytes: number;
  /**
   * How freed room comes back: `incremental` (SQLite with incremental auto-vacuum: retention gives
   * pages back after a pass), `vacuum_needed` (a SQLite file made before it: free pages are reused
   * but the file shrinks only after a one-time VACUUM, see docs/retention.md), `reused` (PostgreSQL:
   * autovacuum makes dead rows' room reusable; the files do not shrink).
   */
  reclaim: 'incremental' | 'vacuum_needed' | 'reused';
}

/** Rows encoded for a one-statement insert (see StoreEngine.insertAsOne). */
export interface RowsInOneStatement {
  columns: string[];
  json: string;
}

/** An event and its deliveries, as run-writes appends them. */
export interface EventWithDeliveryRows {
  event: object & { event_id: string; created_at: string };
  deliveries: readonly object[];
}

/** A delivery a claim took, as the claim's update returns it. */
export interface ClaimedRow {
  delivery_id: string;
  event_id: string;
  run_id: string | null;
  subscriber_id: string;
  subscriber_type: string;
  attempts: number;
  max_attempts: number;
}

/** What `claimDueUnlessLocked` returns for each delivery it took. */
export interface ClaimedDeliveryWithEvent extends ClaimedRow {
  reclaimed_from: { owner: string | null } | null;
  event: Selectable<EventsTable>;
}

/** A lease held on several deliveries by one owner, each at its attempt. */
export interface HeldAttempt {
  delivery_id: string;
  attempts: number;
}

/** A read of the rows whose `column` is one of a list of ids; `ofIds` is that condition. */
export type ReadOfIds<R> = (db: Kysely<Database>, ofIds: Expression<SqlBool>) => SelectQueryBuilder<Database, any, R>;

/**
 * The operations whose SQL or strategy differs between engines. Each takes the Kysely handle to
 * run on (the store's, or the caller's transaction); none opens a transaction unless it says so.
 */
export interface StoreEngine {
  readonly name: Engine;
  readonly capabilities: StoreCapabilities;

  // --- the process's own pacing ---

  /** Group commits in flight at once in this process (see group-commit.ts). */
  readonly groupCommitParallelism: number;
  /** The least time between two reads of the change feed by the ChangeListener. */
  readonly changeReadSpacingMs: number;

  // --- errors, time, schema ---

  /** What a driver error means for the caller: a passing conflict, a lost connection, a unique key taken, or none of them. */
  classifyError(err: unknown): StoreErrorKind;
  /** Now on the database's clock, `offsetMs` added, as ISO 8601 UTC text with milliseconds. */
  now(offsetMs?: number): RawBuilder<string>;
  /** How this engine declares an auto-incrementing key in the shared migrations. */
  readonly autoIncrementKey: AutoIncrementKey;
  /**
   * `value`, bound, for the right side of a comparison with a column that a partial index's
   * predicate compares with a literal (logs.component, in logs_entity_changes). SQLite checks a
   * bound value against such a predicate when it plans, so it plans the statement again each time
   * the value is bound (docs/performance-notes.md, "Statements planned once"); written `+?`, it is
   * the same value to the comparison and to the index search, and not one the planner checks.
   */
  unplannedValue<T>(value: T): Expression<T>;
  /**
   * Steps this engine adds to shared migrations, by migration name, run after the shared steps
   * on the way up and before them on the way down. Names never change, so existing databases
   * migrate as before.
   */
  readonly extraMigrationSteps: Readonly<Record<string, Partial<Migration>>>;

  // --- deliveries ---

  /**
   * Claims up to `limit` due deliveries for `owner` until `leaseUntil`, with their events, unless
   * the runtime_state row `lockKey` holds an unexpired lock (see DeliveryRepository). Runs in a
   * transaction of its own.
   */
  claimDueUnlessLocked(
    db: Kysely<Database>,
    claim: { lockKey: string; owner: string; leaseUntil: string; nowIso: string; limit: number },
  ): Promise<{ locked: boolean; claimed: ClaimedDeliveryWithEvent[] }>;
  /** Marks `owner`'s held deliveries (at most MAX_ROWS_PER_STATEMENT) delivered in one statement; the ids it marked. */
  markDelivered(trx: Kysely<Database>, owner: string, held: readonly HeldAttempt[], nowIso: string): Promise<string[]>;

  // --- batched writes ---

  /**
   * Inserts `rows` into `table` in one statement whatever their count, returning `returning` of
   * each; undefined when this engine (or these rows) cannot, and the caller inserts a VALUES list.
   * `withNext`: nothing is read back, and the statement may go out with the transaction's next one.
   */
  insertAsOne<R>(trx: Kysely<Database>, table: keyof Database & string, rows: readonly object[], options?: { returning?: readonly string[]; withNext?: boolean }): Promise<R[] | undefined>;
  /**
   * Events and their deliveries in one statement, each delivery taking its event's seq; each
   * event's id and seq, or undefined when this engine (or these rows) cannot.
   */
  insertEventsWithDeliveries(trx: Kysely<Database>, items: readonly EventWithDeliveryRows[]): Promise<{ event_id: string; seq: number }[] | undefined>;
  /**
   * Settles the running runs among `runIds` that have no open delivery left: failed when one of
   * their dead letters was not redriven, completed otherwise. The runs it settled, with their status.
   */
  settleRunsWhenQuiet(trx: Kysely<Database>, runIds: readonly string[], settledAt: string): Promise<{ run_id: string; status: 'completed' | 'failed' }[]>;
  /**
   * Runs `read` for the rows whose text `column` is one of `ids`. `read` must be a module-level
   * constant: an engine may compile it once and keep it for every call (one text for any count).
   */
  readByIds<R>(db: Kysely<Database>, read: ReadOfIds<R>, column: string, ids: readonly string[]): Promise<R[]>;
  /**
   * An expression of an events row aliased `e` that is its event.list record (the contract's
   * StoredEvent) as JSON text, deliveries and dead letters nested (repositories/event-record-json.ts);
   * undefined where pages are read as rows and mapped in JavaScript (PostgreSQL, whose CPU every
   * server shares: docs/decisions/0021-event-records-as-json.md).
   */
  readonly eventRecordJson: string | undefined;
  /**
   * Deletes the rows of `table` that `scope` leaves (all, without one) inside the caller's
   * transaction, without holding this process's event loop for long; the rows deleted.
   */
  deleteAll(trx: Kysely<any>, table: string, scope?: (query: any) => any): Promise<number>;

  // --- guards, locks and the change feed ---

  /**
   * Reads `key` and holds it against change until the transaction ends where writers are
   * concurrent; reads `alongKeys` too when the engine can in the same statement (`along`).
   */
  readHolding(trx: Kysely<Database>, key: string, alongKeys: readonly string[]): Promise<{ value: string | undefined; along?: Map<string, string | undefined> }>;
  /**
   * The pipelined guard (capabilities.pipelinedGuard); throws where the engine has none. Its
   * refusal fails the transaction with an error `refusedByGuard` recognises.
   */
  refuseWithNextWhileLocked(trx: Kysely<Database>, key: string, nowIso: string, refuseKey: string, refuseValue: string): Promise<void>;
  /** `query` made to pass over rows another transaction has locked, where writers are concurrent. */
  skippingLockedRows<Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q;
  /** Takes a lock named by `key` for the rest of the transaction unless another holds it; true when taken (or when one process owns the store). */
  tryTransactionLock(trx: Kysely<Database>, key: number): Promise<boolean>;
  /** The transaction's change row (its last statement), telling listeners where the engine can. */
  insertChange(trx: Kysely<Database>, kinds: string, serverId: string | null): Promise<void>;

  // --- payload search (docs/decisions/0019-payload-search.md) ---

  /**
   * `condition` on the JSON text in `column` (a qualified column reference such as `e.payload`).
   * The path (strict syntax, checked by the contract) goes in as a literal, so the expression is
   * the one `ensurePayloadIndex` indexes; values are always bound. Equality is typed: "5" is not 5.
   */
  payloadCondition(column: string, condition: PayloadCondition): Expression<SqlBool>;
  /**
   * Creates, unless it exists, the index `name` on events over the payload value at `path` (strict
   * syntax), then created_at and seq (the list's order), holding only events that have the value.
   * True when it created it.
   */
  ensurePayloadIndex(db: Kysely<Database>, name: string, path: string): Promise<boolean>;
  // --- space ---

  /** The store's size and how its freed room comes back. */
  storage(db: Kysely<Database>): Promise<StorageReading>;
  /** Gives up to `maxPages` free pages back to the file system where the engine can; the pages given back. */
  reclaimSpace(db: Kysely<Database>, maxPages: number): Promise<number>;
}
