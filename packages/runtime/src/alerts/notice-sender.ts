/**
 * Delivers the notice outbox. Each pass leases the due notices (UPDATE with lease owner and
 * until: on PostgreSQL one server gets each), POSTs them, and records the outcome under the lease.
 * A failed attempt is due again after an exponential backoff with jitter; after the last attempt
 * the notice is failed (alert.notice_resend makes it pending again). A server killed mid-send leaves
 * a lease that lapses, and whichever server claims the notice next sends it again with the same id:
 * receivers de-duplicate on webhook-id.
 */
import { Webhook } from 'standardwebhooks';
import type { AlertDestinationRecord, AlertNoticeRecord, Clock, Store } from '@switchboard/store';
import { slackBody, webhookBody } from './notice-content';

export interface NoticeSenderOptions {
  /** Attempts before a notice is failed (default 8). */
  maxAttempts?: number;
  /** The first retry's delay; each later one doubles it, up to an hour (default 2 s). */
  backoffMs?: number;
  /** How long a claimed notice stays leased (default 20 s; at least twice the send timeout, so a send in flight keeps its lease). */
  leaseMs?: number;
  /** Each POST is abandoned after this (default 5 s). */
  sendTimeoutMs?: number;
  /** Longest wait between two looks at the outbox when nothing woke the sender (default 1 s). */
  pollMs?: number;
  /** The console's public URL: notice links are absolute when set. */
  publicUrl?: string;
}

const MAX_BACKOFF_MS = 3_600_000;
/** Notices leased per pass. */
const BATCH = 16;

/** The delay before attempt `attempts + 1`: doubling from `baseMs`, with ±25% jitter so retries of a burst spread out. */
export function noticeBackoffMs(attempts: number, baseMs: number): number {
  const exact = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exact * (0.75 + Math.random() * 0.5));
}

type Outcome = { ok: true } | { ok: false; error: string };

export class NoticeSender {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  /** When a retry this process scheduled falls due (ms), so a short backoff is not held to the poll. */
  private soonestRetry = Infinity;
  private readonly inFlight = new Set<Promise<void>>();
  readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly leaseMs: number;
  private readonly sendTimeoutMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly owner: () => string,
    /** Without a destination no notice can be due: the sender then does not look. */
    private readonly anyDestination: () => boolean,
    private readonly options: NoticeSenderOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 8;
    this.backoffMs = options.backoffMs ?? 2_000;
    this.sendTimeoutMs = options.sendTimeoutMs ?? 5_000;
    this.leaseMs = Math.max(options.leaseMs ?? 4 * this.sendTimeoutMs, 2 * this.sendTimeoutMs);
    this.pollMs = options.pollMs ?? 1_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  /** A notice became due: look now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let claimed = 0;
      try {
        claimed = await this.pass();
      } catch {
        // The store was unreachable or busy: the next pass tries again; leases keep notices safe.
      }
      if (!this.running) break;
      // A full batch may have more behind it.
      if (claimed >= BATCH || this.woken) continue;
      const untilRetry = this.soonestRetry - this.clock.now().getTime();
      this.soonestRetry = Infinity;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, Math.min(this.pollMs, untilRetry)));
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Leases due notices and sends them; how many it leased. */
  private async pass(): Promise<number> {
    if (!this.anyDestination()) return 0;
    const now = this.clock.now();
    const notices = await this.store.alerts.notices.claimDue(this.owner(), now.toISOString(), new Date(now.getTime() + this.leaseMs).toISOString(), BATCH);
    if (notices.length === 0) return 0;
    const destinations = new Map((await this.store.alerts.destinations()).map((d) => [d.id, d]));
    const sends = notices.map((n) => this.track(this.attempt(n, destinations.get(n.destination_id))));
    await Promise.allSettled(sends);
    return notices.length;
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private async attempt(notice: AlertNoticeRecord, destination: AlertDestinationRecord | undefined): Promise<void> {
    const attempts = Number(notice.attempts) + 1;
    const outcome: Outcome = destination ? await this.send(notice, destination) : { ok: false, error: 'the destination was deleted' };
    const owner = this.owner();
    if (outcome.ok) {
      await this.store.alerts.notices.delivered(notice.id, owner, this.clock.now().toISOString(), attempts);
      return;
    }
    const retry = destination && attempts < this.maxAttempts;
    const nextMs = this.clock.now().getTime() + noticeBackoffMs(attempts, this.backoffMs);
    if (retry) this.soonestRetry = Math.min(this.soonestRetry, nextMs);
    const nextAt = retry ? new Date(nextMs).toISOString() : null;
    await this.store.alerts.notices.attemptFailed(notice.id, owner, attempts, outcome.error, nextAt);
  }

  private async send(notice: AlertNoticeRecord, destination: AlertDestinationRecord): Promise<Outcome> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Switchboard-Alerts' };
    let body: string;
    if (destination.kind === 'webhook') {
      body = webhookBody(notice, this.options.publicUrl);
      const sentAt = this.clock.now();
      headers['webhook-id'] = notice.id;
      headers['webhook-timestamp'] = String(Math.floor(sentAt.getTime() / 1000));
      headers['webhook-signature'] = new Webhook(destination.secret ?? '').sign(notice.id, sentAt, body);
    } else {
      body = slackBody(notice, this.options.publicUrl);
    }
    try {
      const res = await fetch(destination.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.sendTimeoutMs) });
      // Read (and drop) the answer so the connection can be reused.
      await res.arrayBuffer().catch(() => undefined);
      return res.ok ? { ok: true } : { ok: false, error: `HTTP ${res.status}` };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError') return { ok: false, error: `no answer within ${this.sendTimeoutMs} ms` };
      return { ok: false, error: e.cause?.code ?? e.cause?.message ?? e.message };
    }
  }
}
