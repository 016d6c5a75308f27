/**
 * What the change feed tells the open consoles of this server, whichever server made the change:
 *
 * - `runtime.changed {seq, kinds}` to every socket holding a heartbeat subscription, coalesced: at
 *   most one per `intervalMs` (the first of a quiet spell at once, the rest merged into the next),
 *   so a burst of publishes costs a console one notice per interval, not one per commit.
 * - `runtime.reset`, for a reset another server applied: its audit record is read and announced in
 *   the shape the server that ran it announces it in. This server's own resets are announced by
 *   `runtime.onReset` as they finish; each reset is announced once.
 */
import type { z } from 'zod';
import type { runtimeResetNotification } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { ChangeKind, ChangeListener, ChangeRecord, Store } from '@switchboard/store';
import type { Logger } from '../logger';
import type { HeartbeatBroadcast } from './heartbeat-broadcast';

/** Least time between two runtime.changed notices to one socket. */
export const CHANGE_NOTICE_INTERVAL_MS = 100;

type ResetNotice = z.output<typeof runtimeResetNotification>['params'];

export class ChangeNotices {
  private pending: { seq: number; kinds: Set<ChangeKind> } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt = -Infinity;
  private announcedResetId: string | undefined;
  /** Resets that finished before this server started are history, not news: never announced. */
  private seeded: Promise<void> = Promise.resolve();
  private readingReset: Promise<void> | undefined;
  private readResetAgain = false;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly deps: { store: Store; runtime: Runtime; heartbeats: HeartbeatBroadcast; logger: Logger },
    private readonly intervalMs = CHANGE_NOTICE_INTERVAL_MS,
  ) {}

  start(listener: ChangeListener): void {
    this.seeded = this.newestFinishedReset().then(
      (newest) => void (this.announcedResetId ??= newest?.reset_id),
      () => undefined,
    );
    this.cleanups.push(
      listener.subscribe((batch) => this.heard(batch)),
      // Every open console drops what it shows once the runtime was reset, within a second.
      this.deps.runtime.onReset((reset) => this.announceReset(reset)),
    );
  }

  stop(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    clearTimeout(this.timer);
    this.timer = undefined;
    return Promise.all([this.seeded, this.readingReset]).then(() => undefined);
  }

  private heard(batch: ChangeRecord[]): void {
    const pending = (this.pending ??= { seq: 0, kinds: new Set() });
    for (const change of batch) {
      pending.seq = Math.max(pending.seq, change.seq);
      for (const kind of change.kinds) pending.kinds.add(kind);
    }
    if (pending.kinds.size === 0) this.pending = undefined;
    else this.schedule();
    if (batch.some((c) => c.kinds.includes('reset') && c.server_id !== this.deps.runtime.serverId)) this.readResetOfAnotherNode();
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastSentAt + this.intervalMs - performance.now();
    if (wait <= 0) this.send();
    else {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.send();
      }, wait);
      this.timer.unref();
    }
  }

  private send(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.lastSentAt = performance.now();
    this.deps.heartbeats.notifyAll('runtime.changed', { seq: pending.seq, kinds: [...pending.kinds].sort() }, { skipBehind: true });
  }

  /** One read at a time; a reset change heard during a read is read again after it. */
  private readResetOfAnotherNode(): void {
    if (this.readingReset) {
      this.readResetAgain = true;
      return;
    }
    this.readingReset = (async () => {
      do {
        this.readResetAgain = false;
        await this.announceNewestReset();
      } while (this.readResetAgain);
    })().finally(() => (this.readingReset = undefined));
  }

  /** The newest reset, if it has finished (its cleanup may commit before its end: a change of its own). */
  private async newestFinishedReset() {
    const [newest] = await this.deps.store.runtimeRecords.resets(1);
    return newest && newest.status !== 'in_progress' && newest.finished_at ? { ...newest, finished_at: newest.finished_at } : undefined;
  }

  private async announceNewestReset(): Promise<void> {
    try {
      await this.seeded;
      const newest = await this.newestFinishedReset();
      if (!newest) return;
      this.announceReset({
        reset_id: newest.reset_id,
        status: newest.status,
        finished_at: newest.finished_at,
        ...(newest.reason ? { reason: newest.reason } : {}),
        ...(newest.actor_token_id ? { actor_token_id: newest.actor_token_id } : {}),
      });
    } catch (err) {
      this.deps.logger.warn('reading the reset another server applied failed', { error: (err as Error).message });
    }
  }

  private announceReset(reset: ResetNotice): void {
    if (reset.reset_id === this.announcedResetId) return;
    this.announcedResetId = reset.reset_id;
    this.deps.heartbeats.notifyAll('runtime.reset', reset);
  }
}
