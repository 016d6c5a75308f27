import { Migrator, sql, type Kysely } from 'kysely';
import { systemClock, type Clock } from './clock';
import { DatabaseClock } from './database-clock';
import type { Engine, StoreCapabilities, StoreEngine, StoreErrorKind } from './engines/engine';
import { migrationProvider } from './migrations/index';
import { openSqlite, openSqliteBulkReader, openSqliteThreadReader } from './engines/sqlite/open-sqlite';
import { sqliteEngine } from './engines/sqlite/sqlite-engine';
import { DatabaseUnreachableError, openPostgres, redactedUrl } from './engines/postgres/open-postgres';
import { postgresEngine } from './engines/postgres/postgres-engine';
import { IdempotencyRepository } from './repositories/idempotency';
import { AuditRepository } from './repositories/audit';
import { TokenRepository } from './repositories/tokens';
import { UserRepository } from './repositories/users';
import { WebSessionRepository } from './repositories/web-sessions';
import { AgentReadRepository } from './repositories/agent-reads';
import { ConversationReadRepository } from './repositories/conversation-reads';
import { EventRepository } from './repositories/events';
import { IncidentRollupCache, watchRollupWrites } from './repositories/incident-rollup-cache';
import { IncidentRepository } from './repositories/incidents';
import { LogRepository } from './repositories/logs';
import { MailboxReadRepository } from './repositories/mailbox-reads';
import { RunReadRepository } from './repositories/run-reads';
import { OperationRepository } from './repositories/operations';
import { RuntimeRecordReads } from './repositories/runtime-records';
import { LookupRepository } from './repositories/lookup';
import { DeliveryRepository } from './repositories/deliveries';
import type { Database } from './schema';
import { GroupCommit } from './group-commit';
import { RuntimeStateRepository } from './repositories/runtime-state';
import { RunWriteRepository } from './repositories/run-writes';
import { ContainerRepository } from './repositories/containers';
import { EntityRepository } from './repositories/entities';
import { ResetRepository } from './repositories/resets';
import { MailboxDecisionRepository } from './repositories/mailbox-decisions';
import { AgentWriteRepository } from './repositories/agent-writes';
import { ServerRepository } from './repositories/servers';
import { AlertRepository } from './repositories/alerts';
import { SavedViewRepository } from './repositories/saved-views';
import { RetentionRepository } from './repositories/retention';
import { storeTxOf, type StoreTx } from './store-tx';
import { ClusterGaugeReads } from './repositories/cluster-gauges';
import { noopStoreObserver, type StoreObserver } from './store-observer';
import { ChangeFeedRepository } from './change-feed';
import { ChangeListener, type ChangeListenerOptions } from './change-listener';

/** A store for reads that walk a whole list (exports); `close` when the walk ends. */
export interface BulkReader {
  store: Store;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** The SQLite store's folder (the embedded default). */
  dataDir?: string;
  /** A PostgreSQL URL (postgres://…); when given, the store runs on PostgreSQL and dataDir is unused. */
  databaseUrl?: string;
  /** SQLite: how long a write waits for another connection's write lock before it fails busy (5,000 ms by default). */
  sqliteBusyTimeoutMs?: number;
  clock?: Clock;
}

/**
 * The storage engine behind one async interface. Callers use the repositories, named for what they
 * do; every statement lives in this package. A caller that needs several writes to commit together
 * opens `transaction` and hands its opaque `StoreTx` to the repository methods.
 */
export class Store {
  readonly tokens: TokenRepository;
  readonly users: UserRepository;
  readonly webSessions: WebSessionRepository;
  readonly idempotency: IdempotencyRepository;
  /** The audit trail's hash chain (see repositories/audit.ts). */
  readonly audit: AuditRepository;
  readonly events: EventRepository;
  readonly incidents: IncidentRepository;
  readonly logs: LogRepository;
  readonly mailboxReads: MailboxReadRepository;
  readonly agentReads: AgentReadRepository;
  readonly conversationReads: ConversationReadRepository;
  readonly runReads: RunReadRepository;
  readonly operations: OperationRepository;
  readonly runtimeRecords: RuntimeRecordReads;
  readonly lookup: LookupRepository;
  readonly deliveries: DeliveryRepository;
  readonly runtimeState: RuntimeStateRepository;
  readonly runWrites: RunWriteRepository;
  readonly containers: ContainerRepository;
  readonly entities: EntityRepository;
  readonly resets: ResetRepository;
  readonly mailboxDecisions: MailboxDecisionRepository;
  readonly agentWrites: AgentWriteRepository;
  readonly servers: ServerRepository;
  /** Alert rules, destinations, silences and the notice outbox. */
  readonly alerts: AlertRepository;
  /** People's saved views of the console's lists. */
  readonly savedViews: SavedViewRepository;
  /** What retention removes and keeps, its lease and the record of its passes (ADR 0018). */
  readonly retention: RetentionRepository;
  /** The change feed: what committed, for other servers and live consoles (see change-feed.ts). */
  readonly changes: ChangeFeedRepository;
  readonly groupCommit: GroupCommit;
  /** The cluster's state for a metrics scrape (see cluster-gauges.ts). */
  readonly clusterGauges: ClusterGaugeReads;
  private observer: StoreObserver = noopStoreObserver;
  private listener: ChangeListener | undefined;

  /** What the runtime and the server may rely on (see engines/engine.ts); they never ask for the engine's name. */
  readonly capabilities: StoreCapabilities;

  private constructor(
    private readonly db: Kysely<Database>,
    private readonly storeEngine: StoreEngine,
    readonly clock: Clock,
    readonly location: string,
    private readonly onClose: () => void,
    changeCounter: (() => number) | undefined,
    databaseUrl?: string,
    private readonly bulkReaderConnection?: () => { db: Kysely<Database>; close: () => void },
  ) {
    const engine = storeEngine;
    this.capabilities = engine.capabilities;
    this.audit = new AuditRepository(db, engine, clock);
    this.changes = new ChangeFeedRepository(db, engine, databaseUrl, this.audit);
    this.groupCommit = new GroupCommit(db, this.changes, engine.groupCommitParallelism);
    // On PostgreSQL other processes commit through connections of their own; the change feed's
    // listener, while it follows the feed, tells this one of their token changes.
    this.tokens = new TokenRepository(db, clock, this.changes, changeCounter ?? (() => this.listener?.tokensVersion()));
    this.users = new UserRepository(db, clock, this.changes, () => this.tokens.forgetVerified());
    this.webSessions = new WebSessionRepository(db, clock);
    this.idempotency = new IdempotencyRepository(db, clock);
    this.events = new EventRepository(db, this.changes, engine);
    this.runtimeState = new RuntimeStateRepository(db, engine);
    this.incidents = new IncidentRepository(db, this.changes, engine, this.runtimeState);
    this.logs = new LogRepository(db, this.changes, engine);
    this.mailboxReads = new MailboxReadRepository(db, engine);
    this.agentReads = new AgentReadRepository(db);
    this.conversationReads = new ConversationReadRepository(db);
    this.runReads = new RunReadRepository(db);
    this.operations = new OperationRepository(db, engine);
    this.runtimeRecords = new RuntimeRecordReads(db);
    this.lookup = new LookupRepository(db);
    this.deliveries = new DeliveryRepository(db, engine);
    this.runWrites = new RunWriteRepository(db, engine);
    this.containers = new ContainerRepository(db);
    this.entities = new EntityRepository(db);
    this.resets = new ResetRepository(db, engine);
    this.mailboxDecisions = new MailboxDecisionRepository(db);
    this.agentWrites = new AgentWriteRepository(db, this.changes);
    this.servers = new ServerRepository(db, engine);
    this.clusterGauges = new ClusterGaugeReads(db, this.runWrites);
    this.alerts = new AlertRepository(db, this.changes, engine);
    this.savedViews = new SavedViewRepository(db, engine);
    this.retention = new RetentionRepository(db, engine);
  }

  /** The engine's name: a label for health checks, logs and test fixtures, never a branch (read `capabilities`). */
  get engine(): Engine {
    return this.storeEngine.name;
  }

  /**
   * What a failed store call means: `busy` (a passing conflict: SQLite's lock, a PostgreSQL
   * deadlock or serialization failure) or `unavailable` (the database connection was lost or
   * refused), both worth a retry; `other` for everything else. The engine reads its driver's codes.
   */
  classifyError(err: unknown): StoreErrorKind {
    return this.storeEngine.classifyError(err);
  }

  static async open(options: StoreOptions): Promise<Store> {
    if (options.databaseUrl) {
      const { db } = openPostgres(options.databaseUrl);
      // Timestamps that order pages come from the database's clock, whichever host writes them.
      const databaseClock = options.clock ? undefined : new DatabaseClock(db);
      try {
        // The first statements, each a plain read: if they fail, the database cannot be reached.
        await (databaseClock ? databaseClock.sync() : sql`select 1`.execute(db));
      } catch (err) {
        await db.destroy();
        throw new DatabaseUnreachableError(redactedUrl(options.databaseUrl), err instanceof Error ? err.message : String(err));
      }
      databaseClock?.start();
      const store = new Store(db, postgresEngine, options.clock ?? databaseClock!, redactedUrl(options.databaseUrl), () => databaseClock?.stop(), undefined, options.databaseUrl);
      await store.migrate();
      return store;
    }
    const clock = options.clock ?? systemClock;
    if (!options.dataDir) throw new Error('Store.open needs a dataDir (SQLite) or a databaseUrl (PostgreSQL)');
    const { db, raw, file } = openSqlite(options.dataDir, options.sqliteBusyTimeoutMs);
    // PRAGMA data_version moves when another connection commits: how the token memory learns of the CLI.
    const dataVersion = raw.prepare('PRAGMA data_version').pluck();
    const bulkReaderConnection = () => {
      const reader = openSqliteBulkReader(file);
      return { db: reader.db, close: () => reader.raw.close() };
    };
    const store = new Store(db, sqliteEngine, clock, file, () => raw.close(), () => dataVersion.get() as number, undefined, bulkReaderConnection);
    await store.migrate();
    // After the migrations: the triggers are on the rollup tables.
    watchRollupWrites(raw);
    const rollupCache = new IncidentRollupCache(raw, () => dataVersion.get() as number);
    store.incidents.keepRollupsInMemory(rollupCache);
    store.logs.afterRollupWrites(() => rollupCache.countWrite());
    return store;
  }

  /**
   * The file a reader thread opens with `Store.openThreadReader`, where reading in another thread
   * gains the process a core (SQLite: the main thread runs every statement of its connection).
   * Undefined on PostgreSQL, where statements already run in the database server's processes.
   */
  get threadReaderFile(): string | undefined {
    return this.bulkReaderConnection ? this.location : undefined;
  }

  /**
   * A store for reads only, in a thread of its own, on the file `threadReaderFile` names: no
   * migrations (the store that owns the file ran them) and every write refused. On SQLite's clock.
   */
  static openThreadReader(file: string): Store {
    const reader = openSqliteThreadReader(file);
    return new Store(reader.db, sqliteEngine, systemClock, file, () => reader.raw.close(), () => 0);
  }

  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider(this.storeEngine) });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new Error(`store migration ${failed ? failed.migrationName : '(before any ran)'} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Changes marked in it are recorded in the change feed when it commits (one row at most). */
  async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await this.changes.transaction((trx) => fn(storeTxOf(trx)));
      this.observer.onTransaction('single', 'commit', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      this.observer.onTransaction('single', 'rollback', (performance.now() - started) / 1000);
      throw error;
    }
  }

  /** Tells `observer` of every transaction from now on (the server's metrics). */
  observe(observer: StoreObserver): void {
    this.observer = observer;
    this.groupCommit.observer = observer;
  }

  /**
   * A small durable write that may share its transaction and fsync with other callers' (group
   * commit, see group-commit.ts). `fn` runs in a savepoint of the group's transaction: its own
   * failure rolls back only its writes. Resolves once the group's commit is on disk.
   */
  transactionInGroup<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.groupCommit.run((trx) => fn(storeTxOf(trx)));
  }

  /** Round-trip time of a trivial query, for health checks. */
  async ping(): Promise<number> {
    const started = performance.now();
    await sql`select 1`.execute(this.db);
    return performance.now() - started;
  }

  /**
   * Starts following the change feed (see ChangeListener): the server's live updates, reset
   * notices from other servers and, on PostgreSQL, the token memory depend on it. Stopped by close().
   */
  async followChanges(options: ChangeListenerOptions = {}): Promise<ChangeListener> {
    if (this.listener) return this.listener;
    // How soon after a notification to read: each engine's changeReadSpacingMs says why its own.
    const listener = new ChangeListener(this.changes, { minReadSpacingMs: this.storeEngine.changeReadSpacingMs, ...options });
    await listener.start();
    this.listener = listener;
    return listener;
  }

  /**
   * A store for one walk over a whole list. On SQLite it reads through a connection of its own
   * with a small page cache (openSqliteBulkReader), so an export's memory stays bounded; its
   * writes are refused. On PostgreSQL the page cache is the database server's, and this store is it.
   */
  openBulkReader(): BulkReader {
    if (!this.bulkReaderConnection) return { store: this, close: async () => {} };
    const connection = this.bulkReaderConnection();
    const reader = new Store(connection.db, this.storeEngine, this.clock, this.location, connection.close, () => 0);
    return { store: reader, close: () => reader.close() };
  }

  async close(): Promise<void> {
    await this.listener?.stop();
    this.listener = undefined;
    await this.db.destroy();
    this.onClose();
  }
}
