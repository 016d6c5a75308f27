/**
 * Follows the change feed for one process and hands its subscribers each committed change once,
 * in seq order, whichever server committed it.
 *
 * What wakes it: on PostgreSQL a connection of its own (not one of the pool's) LISTENing on the
 * feed's channel; in this process, every commit that recorded a change; and a poll of about a
 * second, the fallback when the listening connection is down and the only way to hear of another
 * process writing a SQLite file (the token CLI). A wake-up carries no data: the listener reads the
 * rows after the last seq it handed out, so nothing is missed across a lost connection — after
 * reconnecting it simply reads from where it was.
 *
 * Gaps: on PostgreSQL a seq is taken when the row is inserted, not when its transaction commits,
 * so a reader may see 12 committed while 11 is still committing. Rows past such a gap are held
 * back until the missing seq shows up (its commit sends a notification too) or `gapWaitMs` went
 * by, after which it is taken for a transaction that rolled back and skipped.
 */
import pg from 'pg';
import { CHANGE_CHANNEL, type ChangeFeedRepository, type ChangeRecord } from './change-feed';

export interface ChangeListenerOptions {
  /** Reads the feed at least this often (the fallback when notifications do not arrive). */
  pollMs?: number;
  /** Least time between two reads while changes keep arriving (bounds the reads a burst causes). */
  minReadSpacingMs?: number;
  /** First and largest wait before reconnecting the listening connection. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** How long rows past a missing seq wait for it before it is taken as rolled back. */
  gapWaitMs?: number;
  /** Changes older than this are pruned from the table, every `pruneEveryMs`. */
  keepMs?: number;
  pruneEveryMs?: number;
  /** Told of a lost or restored listening connection and of failed reads (for the server's log). */
  log?: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

/** How the listening connection names itself in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'switchboard change listener';

/** Rows read at once; a longer backlog is read in several batches. */
const READ_BATCH = 500;

export class ChangeListener {
  private readonly pollMs: number;
  private readonly minReadSpacingMs: number;
  private readonly reconnectMinMs: number;
  private readonly reconnectMaxMs: number;
  private readonly gapWaitMs: number;
  private readonly keepMs: number;
  private readonly pruneEveryMs: number;
  private readonly subscribers = new Set<(batch: ChangeRecord[]) => void>();
  private lastSeq = 0;
  private running = false;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private gap: { seq: number; since: number } | undefined;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectAttempts = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private spacingTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<void> | undefined;
  private stopCommitHook: (() => void) | undefined;
  private lastReadAt = 0;
  private tokenChanges = 0;
  /** Counters for tests and health: notifications heard, listening connections made, reads done. */
  readonly stats = { notifications: 0, connections: 0, reads: 0 };

  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly options: ChangeListenerOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.minReadSpacingMs = options.minReadSpacingMs ?? 25;
    this.reconnectMinMs = options.reconnectMinMs ?? 100;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 5000;
    this.gapWaitMs = options.gapWaitMs ?? 2000;
    this.keepMs = options.keepMs ?? 60 * 60 * 1000;
    this.pruneEveryMs = options.pruneEveryMs ?? 10 * 60 * 1000;
  }

  /** Starts from the newest change: what committed before is not handed out. */
  async start(): Promise<void> {
    if (this.running) return;
    this.lastSeq = await this.feed.latestSeq();
    this.lastReadAt = performance.now();
    this.running = true;
    this.stopCommitHook = this.feed.onCommitted(() => this.wake());
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.pollTimer.unref();
    this.pruneTimer = setInterval(() => this.prune(), this.pruneEveryMs);
    this.pruneTimer.unref();
    this.prune();
    // A database that refuses the listening connection now still gets the poll; it is retried.
    if (this.feed.connectionString) await this.connect();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopCommitHook?.();
    clearInterval(this.pollTimer);
    clearInterval(this.pruneTimer);
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.spacingTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.reading;
    await this.pruning;
  }

  /** Called with each batch of changes read, oldest first; every change is in exactly one batch. */
  subscribe(listener: (batch: ChangeRecord[]) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  /** The seq of the newest change handed out. */
  get position(): number {
    return this.lastSeq;
  }

  /** True while the PostgreSQL listening connection is up (always false on SQLite). */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /**
   * A number that moves whenever a change to tokens was read, or undefined while this listener
   * cannot vouch for having read recently (stopped, or its reads failing): what lets a process
   * remember verified tokens on a database other processes write.
   */
  tokensVersion(): number | undefined {
    if (!this.running || performance.now() - this.lastReadAt > 3 * this.pollMs) return undefined;
    return this.tokenChanges;
  }

  /**
   * Reads the feed soon: now, or once the read in progress is done, and never sooner than
   * `minReadSpacingMs` after the last read (every commit of every server wakes every listener).
   */
  wake(): void {
    if (!this.running) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    const wait = this.lastReadAt + this.minReadSpacingMs - performance.now();
    if (wait > 0) {
      this.spacingTimer ??= setTimeout(() => {
        this.spacingTimer = undefined;
        this.wake();
      }, wait);
      return;
    }
    this.reading = this.readUntilCaughtUp().finally(() => (this.reading = undefined));
  }

  private async readUntilCaughtUp(): Promise<void> {
    do {
      this.readAgain = false;
      try {
        await this.readOnce();
      } catch (err) {
        this.options.log?.('warn', 'reading the change feed failed', { error: (err as Error).message });
        return;
      }
      if (this.readAgain && this.running) await new Promise((resolve) => setTimeout(resolve, this.minReadSpacingMs));
    } while (this.readAgain && this.running);
  }

  private async readOnce(): Promise<void> {
    const rows = await this.feed.after(this.lastSeq, READ_BATCH);
    this.stats.reads += 1;
    this.lastReadAt = performance.now();
    const batch: ChangeRecord[] = [];
    for (const row of rows) {
      const expected = this.lastSeq + 1;
      if (row.seq !== expected) {
        if (this.gap?.seq !== expected) this.gap = { seq: expected, since: performance.now() };
        // Still committing, most likely: its own notification will wake us. Until it is given up.
        if (performance.now() - this.gap.since < this.gapWaitMs) break;
      }
      this.gap = undefined;
      this.lastSeq = row.seq;
      batch.push(row);
    }
    if (rows.length === READ_BATCH && batch.length === rows.length) this.readAgain = true;
    if (batch.length === 0) return;
    if (batch.some((c) => c.kinds.includes('tokens'))) this.tokenChanges += 1;
    for (const listener of this.subscribers) {
      try {
        listener(batch);
      } catch (err) {
        this.options.log?.('warn', 'a change feed subscriber failed', { error: (err as Error).message });
      }
    }
  }

  private connect(): Promise<void> {
    this.connecting ??= this.openListeningConnection().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async openListeningConnection(): Promise<void> {
    // keepAlive: a peer that vanished (network cut) is noticed, not waited on forever.
    const client = new pg.Client({ connectionString: this.feed.connectionString, keepAlive: true, application_name: LISTENER_APPLICATION_NAME });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL) return;
      this.stats.notifications += 1;
      this.wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (err) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      this.options.log?.('warn', 'the change feed listening connection could not be opened', { error: (err as Error).message, attempt: this.reconnectAttempts + 1 });
      this.scheduleReconnect();
      return;
    }
    if (!this.running) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.stats.connections += 1;
    if (this.reconnectAttempts > 0) this.options.log?.('info', 'the change feed listening connection is back', { attempts: this.reconnectAttempts });
    this.reconnectAttempts = 0;
    // What committed while nobody was listening is read now, from the last seq handed out.
    this.wake();
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (!this.running) return;
    this.options.log?.('warn', 'the change feed listening connection was lost', { error: err?.message ?? 'connection ended' });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (!this.running || this.reconnectTimer) return;
    const delay = Math.min(this.reconnectMaxMs, this.reconnectMinMs * 2 ** this.reconnectAttempts);
    this.reconnectAttempts += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.running) void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private prune(): void {
    if (this.pruning || !this.running) return;
    this.pruning = this.feed
      .prune(this.keepMs)
      .then(
        () => undefined,
        (err: Error) => this.options.log?.('warn', 'pruning the change feed failed', { error: err.message }),
      )
      .finally(() => (this.pruning = undefined));
  }
}
