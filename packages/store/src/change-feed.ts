/**
 * The change feed: what other servers (and this process's WebSocket clients) should hear of, one
 * `changes` row per committed transaction that changed something they show.
 *
 * A repository marks the kind of change its write makes on the caller's transaction
 * (`markChange`); the transaction's owner (`Store.transaction`, a group commit, or a repository
 * that opens its own through `ChangeFeedRepository.transaction`) inserts one row with the kinds
 * merged as its last statement, so a group of sixty-four publishes adds one statement, not
 * sixty-four. On PostgreSQL that statement also calls `pg_notify` on one channel with an empty
 * payload: PostgreSQL delivers it on commit only and folds identical notifications of one
 * transaction into one, so a listener learns "something committed" and reads the rows by keyset
 * (see ChangeListener). A transaction that changed nothing the feed tracks writes no row.
 */
import type { Kysely, Transaction } from 'kysely';
import { CHANGE_KINDS, type ChangeKind } from '@switchboard/contract';
import type { StoreEngine } from './engines/engine';
import type { Database } from './schema';
import { executorOf, type StoreTx } from './store-tx';
import { compiledOnce } from './compiled-once';

export { CHANGE_KINDS, type ChangeKind };

/** The channel every server LISTENs on; notifications on it carry no data. */
export const CHANGE_CHANNEL = 'switchboard_changes';

const changesAfter = compiledOnce((db, seq: number, limit: number) =>
  db.selectFrom('changes').select(['seq', 'kinds', 'server_id']).where('seq', '>', seq).orderBy('seq').limit(limit),
);

/**
 * A kind of change for servers only (never in `runtime.changed`): the transaction wrote deliveries
 * that wait for a claim (pending), so other servers' dispatchers claim at once instead of at their
 * next poll. A publish whose deliveries were written leased to its own server does not carry it.
 */
export const CLAIMABLE = 'claimable';
type FeedKind = ChangeKind | typeof CLAIMABLE;

/** One committed transaction's change: its position, what it touched, and the server that made it. */
export interface ChangeRecord {
  seq: number;
  kinds: ChangeKind[];
  /** It wrote deliveries waiting for a claim (CLAIMABLE). */
  claimable: boolean;
  /** The server that committed it; null for a process that is no server (the token CLI, a migration). */
  server_id: string | null;
}

const KNOWN_KINDS = new Set<string>(CHANGE_KINDS);

/** Kinds marked on each open transaction, keyed by its executor (the same object every member of a group uses). */
const marked = new WeakMap<object, Set<FeedKind>>();

/** Marks a change of `kind` on the caller's transaction; recorded when that transaction commits. */
export function markChange(tx: StoreTx, kind: FeedKind): void {
  markOn(executorOf(tx), kind);
}

function markOn(trx: Kysely<Database>, kind: FeedKind): void {
  const kinds = marked.get(trx);
  if (kinds) kinds.add(kind);
  else marked.set(trx, new Set([kind]));
}

/** The kinds marked so far, to restore when a savepoint rolls back what came after. */
export function markedKinds(trx: Kysely<Database>): FeedKind[] {
  return [...(marked.get(trx) ?? [])];
}

export function restoreMarkedKinds(trx: Kysely<Database>, kinds: readonly FeedKind[]): void {
  if (kinds.length === 0) marked.delete(trx);
  else marked.set(trx, new Set(kinds));
}

/** A change row's kinds; unknown ones (written by a newer server) are left out. */
function parseKinds(text: string): Pick<ChangeRecord, 'kinds' | 'claimable'> {
  const all = text.split(',');
  return { kinds: all.filter((k): k is ChangeKind => KNOWN_KINDS.has(k)), claimable: all.includes(CLAIMABLE) };
}

export class ChangeFeedRepository {
  private serverId: string | null = null;
  private readonly committedListeners = new Set<() => void>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: StoreEngine,
    /** The PostgreSQL URL a listener opens its own connection with; undefined on SQLite. */
    readonly connectionString: string | undefined,
    /** Writes the audit records a transaction holds, just before its change row (see AuditRepository). */
    private readonly audit: { flushIn(trx: Kysely<Database>): Promise<number> },
  ) {}

  /** The server this process's changes are recorded as made by (set once the runtime has its id). */
  identify(serverId: string): void {
    this.serverId = serverId;
  }

  /** Marks a change of `kind` on the caller's transaction (for a write whose repository cannot tell its kind). */
  mark(tx: StoreTx, kind: ChangeKind): void {
    markChange(tx, kind);
  }

  get writerServerId(): string | null {
    return this.serverId;
  }

  /**
   * Runs `fn` in a transaction whose marked changes are recorded when it commits; this process's
   * listeners are told once the commit is done.
   */
  async transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    let recorded = false;
    const value = await this.db.transaction().execute(async (trx) => {
      const result = await fn(trx);
      recorded = await this.finishIn(trx);
      return result;
    });
    if (recorded) this.committed();
    return value;
  }

  /**
   * A write of one `kind` in the caller's transaction when given, otherwise in a transaction of its
   * own, so that the change is recorded either way.
   */
  write<T>(kind: ChangeKind, tx: StoreTx | undefined, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    if (tx) {
      markChange(tx, kind);
      return fn(executorOf(tx));
    }
    return this.transaction((trx) => {
      markOn(trx, kind);
      return fn(trx);
    });
  }

  /**
   * A transaction's last statements before its commit: the audit records it holds, then its change
   * row. Returns whether a change row was written.
   */
  async finishIn(trx: Kysely<Database>): Promise<boolean> {
    await this.audit.flushIn(trx);
    return this.recordIn(trx);
  }

  /**
   * Inserts the transaction's one change row if anything was marked on it (the last statement
   * before its commit); returns whether it did.
   */
  async recordIn(trx: Kysely<Database>): Promise<boolean> {
    const kinds = marked.get(trx);
    if (!kinds || kinds.size === 0) return false;
    marked.delete(trx);
    await this.engine.insertChange(trx, [...kinds].sort().join(','), this.serverId);
    return true;
  }

  /** Tells this process's listeners that a transaction with a change row committed. */
  committed(): void {
    for (const listener of this.committedListeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the commit it hears of has happened.
      }
    }
  }

  /** Called after each commit in this process that recorded a change (no data: read `after`). */
  onCommitted(listener: () => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /** Changes after `seq`, oldest first, at most `limit`. */
  async after(seq: number, limit: number): Promise<ChangeRecord[]> {
    const { rows } = await changesAfter(this.db, seq, limit);
    return rows.map((r) => ({ seq: Number(r.seq), ...parseKinds(r.kinds), server_id: r.server_id }));
  }

  /** The newest change's seq; 0 when there is none. */
  async latestSeq(): Promise<number> {
    const row = await this.db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  /**
   * Deletes changes older than `keepMs` (database clock), always keeping the newest row so that a
   * server starting later reads its position from the table. Walks the old rows by seq only: no
   * index on created_at is needed.
   */
  async prune(keepMs: number): Promise<number> {
    const firstKept = this.db
      .selectFrom('changes')
      .select('seq')
      .where('created_at', '>=', this.engine.now(-keepMs))
      .orderBy('seq')
      .limit(1);
    const newest = this.db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq'));
    const res = await this.db
      .deleteFrom('changes')
      .where('seq', '<', (eb) => eb.fn.coalesce(firstKept, newest))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
