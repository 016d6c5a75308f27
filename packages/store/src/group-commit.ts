/**
 * Group commit: small durable writes that arrive together share one transaction and one fsync.
 *
 * SQLite has one writer and `synchronous=FULL` pays an fsync per commit, so one transaction per
 * publish caps throughput at the disk's fsync rate however many callers wait. Here callers queue;
 * the queue is flushed on the next turn of the event loop (so every request read in the same I/O
 * phase joins), and whatever arrives during a flush forms the next group (see Coalescer). A member
 * that throws is rolled back alone and answered with its own error, the others commit (see
 * commitGroup). Every caller is answered only after the commit that holds its write; if that
 * commit fails, every member of the group gets the failure and nothing of theirs is on disk.
 */
import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from './schema';
import { markedKinds, restoreMarkedKinds, type ChangeFeedRepository } from './change-feed';
import { forgetHeldRows } from './repositories/runtime-state';
import { heldAuditCount, restoreHeldAudit } from './repositories/audit';
import { noopStoreObserver, type StoreObserver } from './store-observer';
import { Coalescer } from './coalescer';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;

interface Member {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Errors that failed a whole group's transaction (see failedAsGroup). */
const groupFailures = new WeakSet<object>();

/**
 * Whether `error` failed the whole group's transaction (its begin, a savepoint, its commit) rather
 * than the caller's own work. Every member got it, nothing of theirs was applied, unless the commit
 * itself landed and only its answer was lost (a connection that died as it ran): a caller must not
 * write the same thing again on its own.
 */
export function failedAsGroup(error: unknown): boolean {
  return typeof error === 'object' && error !== null && groupFailures.has(error);
}

/** Members per transaction at most: bounds how long one group holds the single connection. */
const MAX_GROUP = 64;

export class GroupCommit {
  /** Groups committed and members in them since boot (for benchmarks and tests). */
  readonly stats = { groups: 0, members: 0 };
  observer: StoreObserver = noopStoreObserver;
  private readonly members: Coalescer<Member>;

  /**
   * `parallel`: groups committing at once. One on SQLite (one connection, one writer); on
   * PostgreSQL several, each on its own pooled connection, so a group waiting for its commit's
   * flush does not hold up the next. Members queued together are not shared among the free
   * connections: they often touch the same rows (a hot entity), and in one group they run one
   * after another instead of conflicting.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
    parallel = 1,
  ) {
    this.members = new Coalescer<Member>({
      flush: (group) => this.commitGroup(group),
      fail: (member, error) => member.reject(error),
      // commitGroup throws only when the group's own transaction failed: every member got it.
      splitAfter: () => false,
      maxBatch: MAX_GROUP,
      parallel,
    });
  }

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.members.add({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private async commitGroup(group: Member[]): Promise<void> {
    let outcomes: Outcome[];
    const recorded = { change: false };
    const started = performance.now();
    try {
      // Optimistic first: every member without a savepoint (two statements fewer each, which on
      // PostgreSQL are two round trips). When one throws, the whole transaction rolls back and the
      // group runs again with a savepoint per member, so only the failing one is refused. The work
      // closures only write through the transaction, so running one again is safe.
      outcomes = (await this.runTogether(group, recorded)) ?? (await this.runIsolated(group, recorded));
    } catch (error) {
      if (typeof error === 'object' && error !== null) groupFailures.add(error);
      this.observer.onTransaction('group', 'rollback', (performance.now() - started) / 1000);
      throw error;
    }
    this.stats.groups += 1;
    this.stats.members += group.length;
    this.observer.onTransaction('group', 'commit', (performance.now() - started) / 1000);
    this.observer.onGroupCommit(group.length);
    if (recorded.change) this.changes.committed();
    group.forEach((member, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) member.resolve(outcome.value);
      else member.reject(outcome.error);
    });
  }

  /** All members in one transaction; undefined (rolled back) when one of several threw. */
  private async runTogether(group: Member[], recorded: { change: boolean }): Promise<Outcome[] | undefined> {
    const failed: { error?: unknown } = {};
    try {
      return await this.db.transaction().execute(async (trx) => {
        const done: Outcome[] = [];
        for (const member of group) {
          try {
            done.push({ ok: true, value: await member.work(trx) });
          } catch (error) {
            failed.error = error;
            throw error; // rolls the transaction back
          }
        }
        // One change row for the whole group, its members' kinds merged.
        recorded.change = await this.changes.finishIn(trx);
        return done;
      });
    } catch (error) {
      if (!('error' in failed) || failed.error !== error) throw error; // the commit itself failed
      // A group of one needs no second run: its failure is its own, and it was rolled back.
      return group.length === 1 ? [{ ok: false, error }] : undefined;
    }
  }

  /** Each member in its own savepoint: a member that throws is rolled back alone. */
  private runIsolated(group: Member[], recorded: { change: boolean }): Promise<Outcome[]> {
    return this.db.transaction().execute(async (trx) => {
      const done: Outcome[] = [];
      for (const member of group) {
        await sql`savepoint group_member`.execute(trx);
        const kindsBefore = markedKinds(trx);
        const auditBefore = heldAuditCount(trx);
        try {
          const value = await member.work(trx);
          await sql`release savepoint group_member`.execute(trx);
          done.push({ ok: true, value });
        } catch (error) {
          await sql`rollback to savepoint group_member`.execute(trx);
          await sql`release savepoint group_member`.execute(trx);
          // What a rolled-back member marked did not happen.
          restoreMarkedKinds(trx, kindsBefore);
          restoreHeldAudit(trx, auditBefore);
          forgetHeldRows(trx);
          done.push({ ok: false, error });
        }
      }
      recorded.change = await this.changes.finishIn(trx);
      return done;
    });
  }
}
