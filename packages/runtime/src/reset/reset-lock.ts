/**
 * The reset lock: at most one reset at a time, across every process on the store. It is one
 * durable row in `runtime_state` (empty when free) with an expiry that the holder keeps extending,
 * so a process that died mid-reset does not block resets forever. Taking it over is a checked
 * compare-and-set.
 *
 * Every mutation's transaction reads the row through `guardWrites` holding a share lock on it
 * (PostgreSQL): taking the lock waits for the mutations already running on any server to commit,
 * and every mutation after it sees the lock and is refused with RESET_IN_PROGRESS. The reset's own
 * writes (pausing and reopening ingress) name that reset (`guardWrites(resetId)`) and pass. Each
 * process also keeps a view of the row, refreshed every `watchMs`, for the questions asked
 * synchronously (readiness, runtime.status, the dispatcher's and operation runner's loops).
 */
import { RpcError } from '@switchboard/contract';
import type { Clock, Store, StoreTx } from '@switchboard/store';

export const RESET_LOCK_KEY = 'reset_lock';

export interface ResetLockHolder {
  reset_id: string;
  started_at: string;
  expires_at: string;
}

export interface ResetLockOptions {
  /** How long the durable row is honoured without a refresh. */
  ttlMs?: number;
  /** How often the view of another process's reset is refreshed (250 ms by default). */
  watchMs?: number;
}

export class ResetLock {
  private holder: ResetLockHolder | undefined;
  /** An unexpired reset held by another process, as last read. */
  private elsewhere: ResetLockHolder | undefined;
  /**
   * The last reset this process held whose row it has since emptied: a view read while the row
   * still named it answers after the release, and must not be taken for another process's reset.
   */
  private released: string | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private readonly ttlMs: number;
  private readonly watchMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: ResetLockOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.watchMs = options.watchMs ?? 250;
  }

  /** True while this process runs a reset. */
  isHeld(): boolean {
    return this.holder !== undefined;
  }

  /** True while this process or (as last seen) another one runs a reset. */
  isHeldByAnyone(): boolean {
    return this.holder !== undefined || (this.elsewhere !== undefined && this.elsewhere.expires_at > this.clock.now().toISOString());
  }

  /** Makes sure the lock's row exists (free), so that share locks on it hold. */
  async prepare(): Promise<void> {
    await this.store.runtimeState.setIfAbsent(RESET_LOCK_KEY, '');
    await this.refreshView();
  }

  /** Keeps the view of other processes' resets fresh until `unwatch`. */
  watch(): void {
    if (this.watchTimer) return;
    const tick = () => {
      void this.refreshView()
        .catch(() => undefined)
        .finally(() => {
          if (this.watchTimer) this.watchTimer = setTimeout(tick, this.watchMs).unref();
        });
    };
    this.watchTimer = setTimeout(tick, this.watchMs).unref();
  }

  unwatch(): void {
    const t = this.watchTimer;
    this.watchTimer = undefined;
    clearTimeout(t);
  }

  /** Reads the row now (also called when the change feed says a reset started or ended). */
  async refreshView(): Promise<void> {
    const row = await this.readDurable();
    const someoneElse = row && row.reset_id !== this.holder?.reset_id && row.reset_id !== this.released;
    this.elsewhere = someoneElse && row.expires_at > this.clock.now().toISOString() ? row : undefined;
  }

  /**
   * A check for a mutation's transaction: the returned function, run inside the transaction,
   * throws RESET_IN_PROGRESS while any process holds the lock, and on PostgreSQL holds the lock's
   * row so that no reset starts until this transaction has ended. `asReset` names the reset whose
   * own step the write is: it passes while that reset holds the lock.
   */
  guardWrites(asReset?: string): (tx: StoreTx) => Promise<void> {
    return async (tx) => {
      const value = await this.store.runtimeState.getHoldingChanges(RESET_LOCK_KEY, tx);
      const holder = value ? parseHolder(value) : undefined;
      if (holder && holder.reset_id !== asReset && holder.expires_at > this.clock.now().toISOString()) throw inProgress(holder);
    };
  }

  /**
   * guardWrites without a round trip of its own, for a write that can run again and is never a
   * reset's own step (a publish): on PostgreSQL the returned function sends the check with the transaction's next
   * statement (RuntimeStateRepository.refuseWithNextWhileLocked), holding the lock's row as
   * guardWrites does, and that statement fails (refusedByGuard) while any reset holds the lock or
   * `refuse.key` has `refuse.value`. The caller then runs its write again with guardWrites, which
   * refuses it with RESET_IN_PROGRESS when a reset is why. Undefined where guardWrites is the way.
   */
  guardWritesWithNext(): ((tx: StoreTx, refuse: { key: string; value: string }) => Promise<void>) | undefined {
    if (!this.store.capabilities.pipelinedGuard) return undefined;
    return (tx, refuse) => this.store.runtimeState.refuseWithNextWhileLocked(tx, RESET_LOCK_KEY, this.clock.now().toISOString(), refuse);
  }

  get current(): ResetLockHolder | undefined {
    return this.holder;
  }

  /** Throws RESET_IN_PROGRESS (retryable) when another reset holds the lock. */
  async assertFree(): Promise<void> {
    if (this.holder) throw inProgress(this.holder);
    const row = await this.readDurable();
    if (row && row.expires_at > this.clock.now().toISOString()) throw inProgress(row);
  }

  /**
   * Takes the lock for `resetId`. The in-memory claim is made before the first await, so two
   * calls in this process cannot both pass; the durable row settles it between processes.
   */
  async acquire(resetId: string): Promise<ResetLockHolder> {
    if (this.holder) throw inProgress(this.holder);
    const now = this.clock.now();
    const claim: ResetLockHolder = { reset_id: resetId, started_at: now.toISOString(), expires_at: this.expiry(now) };
    this.holder = claim;
    try {
      const { runtimeState } = this.store;
      const won = await this.store.transaction(async (tx) => {
        const current = await runtimeState.get(RESET_LOCK_KEY, tx);
        if (current !== undefined) {
          const other = parseHolder(current);
          if (other && other.expires_at > claim.started_at) return other;
          // Take over only the row read here: when another process took it over first, the
          // compare-and-set changes nothing and that process holds the lock.
          if (await runtimeState.replaceIf(RESET_LOCK_KEY, current, JSON.stringify(claim), tx)) return true;
          const winner = parseHolder((await runtimeState.get(RESET_LOCK_KEY, tx)) ?? '');
          return winner ?? { reset_id: 'unknown', started_at: claim.started_at, expires_at: claim.expires_at };
        }
        await runtimeState.insert(RESET_LOCK_KEY, JSON.stringify(claim), tx);
        return true;
      });
      if (won !== true) throw inProgress(won);
    } catch (err) {
      this.holder = undefined;
      if (err instanceof RpcError) throw err;
      // A unique-key race with another process inserting the row first.
      const other = await this.readDurable().catch(() => undefined);
      if (other) throw inProgress(other);
      throw err;
    }
    this.refreshTimer = setInterval(() => void this.refresh().catch(() => undefined), Math.max(1_000, Math.floor(this.ttlMs / 3)));
    this.refreshTimer.unref();
    return claim;
  }

  /** Always succeeds from the caller's point of view: the in-memory lock is dropped even if the store fails. */
  async release(): Promise<void> {
    const holder = this.holder;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
    this.holder = undefined;
    if (!holder) return;
    try {
      const row = await this.readDurable();
      // Emptied, not deleted: the row stays for the share locks of guardWrites.
      if (row?.reset_id === holder.reset_id) await this.store.runtimeState.update(RESET_LOCK_KEY, '');
      // A view read before that update may have answered meanwhile, naming this reset as another's.
      this.released = holder.reset_id;
      if (this.elsewhere?.reset_id === holder.reset_id) this.elsewhere = undefined;
    } catch {
      // The row expires on its own.
    }
  }

  private async refresh(): Promise<void> {
    const holder = this.holder;
    if (!holder) return;
    const next: ResetLockHolder = { ...holder, expires_at: this.expiry(this.clock.now()) };
    await this.store.runtimeState.update(RESET_LOCK_KEY, JSON.stringify(next));
    if (this.holder?.reset_id === holder.reset_id) this.holder = next;
  }

  private expiry(now: Date): string {
    return new Date(now.getTime() + this.ttlMs).toISOString();
  }

  private async readDurable(): Promise<ResetLockHolder | undefined> {
    const value = await this.store.runtimeState.get(RESET_LOCK_KEY);
    return value ? parseHolder(value) : undefined;
  }
}

function parseHolder(value: string): ResetLockHolder | undefined {
  try {
    const v = JSON.parse(value) as Partial<ResetLockHolder>;
    if (typeof v.reset_id === 'string' && typeof v.started_at === 'string' && typeof v.expires_at === 'string') {
      return { reset_id: v.reset_id, started_at: v.started_at, expires_at: v.expires_at };
    }
  } catch {
    // fall through: an unreadable row is treated as no lock
  }
  return undefined;
}

function inProgress(holder: ResetLockHolder): RpcError {
  return new RpcError('RESET_IN_PROGRESS', `A runtime reset (${holder.reset_id}, started ${holder.started_at}) is in progress; retry when it has finished`, {
    reset_id: holder.reset_id,
    started_at: holder.started_at,
  });
}
