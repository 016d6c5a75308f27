/**
 * The reset lock: at most one reset at a time. Held in memory (so readiness and mutation guards
 * can ask synchronously) and as a row in `runtime_state` with an expiry that the holder keeps
 * extending, so another server process on the same database sees it too, and a process that died
 * mid-reset does not block resets forever.
 */
import { RpcError } from '@switchboard/contract';
import type { Clock, Store } from '@switchboard/store';

export const RESET_LOCK_KEY = 'reset_lock';

export interface ResetLockHolder {
  reset_id: string;
  started_at: string;
  expires_at: string;
}

export interface ResetLockOptions {
  /** How long the durable row is honoured without a refresh. */
  ttlMs?: number;
}

export class ResetLock {
  private holder: ResetLockHolder | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly ttlMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: ResetLockOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
  }

  /** True while this process runs a reset. */
  isHeld(): boolean {
    return this.holder !== undefined;
  }

  get current(): ResetLockHolder | undefined {
    return this.holder;
  }

  /** True while any process holds an unexpired lock (this one included). */
  async isHeldAnywhere(): Promise<boolean> {
    if (this.holder) return true;
    const row = await this.readDurable();
    return row !== undefined && row.expires_at > this.clock.now().toISOString();
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
      if (row?.reset_id === holder.reset_id) {
        await this.store.runtimeState.delete(RESET_LOCK_KEY);
      }
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
    return value !== undefined ? parseHolder(value) : undefined;
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
