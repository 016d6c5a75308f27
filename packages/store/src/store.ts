import { Migrator, sql, type Kysely, type Transaction } from 'kysely';
import { systemClock, type Clock } from './clock';
import type { Engine } from './engine';
import { migrationProvider } from './migrations/index';
import { openSqlite } from './open-sqlite';
import { IdempotencyRepository } from './repositories/idempotency';
import { TokenRepository } from './repositories/tokens';
import { WebSessionRepository } from './repositories/web-sessions';
import { AgentReadRepository } from './repositories/agent-reads';
import { ConversationReadRepository } from './repositories/conversation-reads';
import { EventRepository } from './repositories/events';
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

export interface StoreOptions {
  dataDir: string;
  clock?: Clock;
}

/**
 * The storage engine behind one async interface. Callers use the repositories and `db` (a Kysely
 * instance, which speaks both SQLite and PostgreSQL), never a driver directly.
 */
export class Store {
  readonly tokens: TokenRepository;
  readonly webSessions: WebSessionRepository;
  readonly idempotency: IdempotencyRepository;
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
  readonly groupCommit: GroupCommit;

  private constructor(
    readonly db: Kysely<Database>,
    readonly engine: Engine,
    readonly clock: Clock,
    readonly location: string,
    private readonly onClose: () => void,
    changeCounter: () => number,
  ) {
    this.groupCommit = new GroupCommit(db);
    this.tokens = new TokenRepository(db, clock, changeCounter);
    this.webSessions = new WebSessionRepository(db, clock);
    this.idempotency = new IdempotencyRepository(db, clock);
    this.events = new EventRepository(db);
    this.incidents = new IncidentRepository(db);
    this.logs = new LogRepository(db);
    this.mailboxReads = new MailboxReadRepository(db);
    this.agentReads = new AgentReadRepository(db);
    this.conversationReads = new ConversationReadRepository(db);
    this.runReads = new RunReadRepository(db);
    this.operations = new OperationRepository(db);
    this.runtimeRecords = new RuntimeRecordReads(db);
    this.lookup = new LookupRepository(db);
    this.deliveries = new DeliveryRepository(db);
  }

  static async open(options: StoreOptions): Promise<Store> {
    const { db, raw, file } = openSqlite(options.dataDir);
    // PRAGMA data_version moves when another connection commits: how the token memory learns of the CLI.
    const dataVersion = raw.prepare('PRAGMA data_version').pluck();
    const store = new Store(db, 'sqlite', options.clock ?? systemClock, file, () => raw.close(), () => dataVersion.get() as number);
    await store.migrate();
    return store;
  }

  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider(this.engine) });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error');
      throw new Error(`store migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message}`);
    }
  }

  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /**
   * A small durable write that may share its transaction and fsync with other callers' (group
   * commit, see group-commit.ts). `fn` runs in a savepoint of the group's transaction: its own
   * failure rolls back only its writes. Resolves once the group's commit is on disk.
   */
  transactionInGroup<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.groupCommit.run(fn);
  }

  /** Round-trip time of a trivial query, for health checks. */
  async ping(): Promise<number> {
    const started = performance.now();
    await sql`select 1`.execute(this.db);
    return performance.now() - started;
  }

  async close(): Promise<void> {
    await this.db.destroy();
    this.onClose();
  }
}
