/**
 * Group commit: small durable writes that arrive together share one transaction and one fsync.
 *
 * SQLite has one writer and `synchronous=FULL` pays an fsync per commit, so one transaction per
 * publish caps throughput at the disk's fsync rate however many callers wait. Here callers queue;
 * the queue is flushed on the next turn of the event loop (so every request read in the same I/O
 * phase joins), and whatever arrives during a flush forms the next group. Each member runs inside
 * its own savepoint: a member that throws is rolled back alone and answered with its own error,
 * the others commit. Every caller is answered only after the commit that holds its write; if that
 * commit fails, every member of the group gets the failure and nothing of theirs is on disk.
 */
import { type Kysely, type Transaction, sql } from 'kysely';
import type { Database } from './schema';
import { markedKinds, restoreMarkedKinds, type ChangeFeedRepository } from './change-feed';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;

interface Member {
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Members per transaction at most: bounds how long one group holds the single connection. */
const MAX_GROUP = 64;

export class GroupCommit {
  private queue: Member[] = [];
  private flushing = false;
  /** Groups committed and members in them since boot (for benchmarks and tests). */
  readonly stats = { groups: 0, members: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    private readonly changes: ChangeFeedRepository,
  ) {}

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, MAX_GROUP);
        await this.commitGroup(group);
        // Let the requests that arrived meanwhile be read, so they join the next group together.
        if (this.queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.flushing = false;
    }
  }

  private async commitGroup(group: Member[]): Promise<void> {
    let outcomes: Outcome[];
    let recorded = false;
    try {
      outcomes = await this.db.transaction().execute(async (trx) => {
        const done: Outcome[] = [];
        for (const member of group) {
          await sql`savepoint group_member`.execute(trx);
          const kindsBefore = markedKinds(trx);
          try {
            const value = await member.work(trx);
            await sql`release savepoint group_member`.execute(trx);
            done.push({ ok: true, value });
          } catch (error) {
            await sql`rollback to savepoint group_member`.execute(trx);
            await sql`release savepoint group_member`.execute(trx);
            // What a rolled-back member marked did not happen.
            restoreMarkedKinds(trx, kindsBefore);
            done.push({ ok: false, error });
          }
        }
        // One change row for the whole group, its members' kinds merged.
        recorded = await this.changes.recordIn(trx);
        return done;
      });
    } catch (error) {
      for (const member of group) member.reject(error);
      return;
    }
    this.stats.groups += 1;
    this.stats.members += group.length;
    if (recorded) this.changes.committed();
    group.forEach((member, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) member.resolve(outcome.value);
      else member.reject(outcome.error);
    });
  }
}
