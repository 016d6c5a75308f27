/**
 * Publish load across the live servers, with a ledger of every call. Each publish carries a unique
 * key (in its payload and as its idempotency_key); a call that gets no answer (its server died, the
 * database went away) or a retryable error is sent again with the same key, to the next server,
 * until it is acknowledged or its time runs out. So "acknowledged" means a client got a result,
 * and the same key can be counted in the database: present once, or lost, or doubled.
 */
import { NoAnswer, type ChaosServer, type Cluster } from './cluster';

export type ChaosEvent = 'work' | 'flaky' | 'slow';

export interface CallRecord {
  key: string;
  server: string;
  sentAt: number;
  answeredAt: number;
  /** 'ok', an error code, or 'no_answer'. */
  outcome: string;
}

export interface KeyRecord {
  key: string;
  event: ChaosEvent;
  acked?: { event_id: string; run_id: string; status: string; server: string };
  /** The last non-retryable error, when the key was given up. */
  refused?: string;
  calls: number;
}

export interface LoadOptions {
  /** Parallel publishers. */
  concurrency: number;
  /** The event of the n-th publish. */
  mix: (n: number) => ChaosEvent;
  /** Servers to publish to, read before every call (the test kills and restarts them). */
  targets: () => ChaosServer[];
  keyPrefix: string;
  /** A key is given up after this long without an acknowledgement. */
  keyDeadlineMs?: number;
  /** Errors that end a key at once instead of being retried (beyond non-retryable ones). */
  giveUpOn?: string[];
  /** Stops publishing new keys after this many (a bound besides stop()). */
  maxKeys?: number;
}

export class PublishLoad {
  readonly keys = new Map<string, KeyRecord>();
  readonly calls: CallRecord[] = [];
  private next = 0;
  private stopping = false;
  private workers: Promise<void>[] = [];
  private cursor = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly options: LoadOptions,
  ) {}

  start(): this {
    this.workers = Array.from({ length: this.options.concurrency }, () => this.worker());
    return this;
  }

  /** Stops taking new keys; keys under way are still retried until acknowledged or given up. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  /** Keys given up without an acknowledgement, as key:reason (the first `limit`, then how many more). */
  givenUp(limit = 10): string[] {
    const all = [...this.keys.values()].filter((k) => !k.acked).map((k) => `${k.key}:${k.refused ?? 'deadline'}`);
    return all.length > limit ? [...all.slice(0, limit), `…and ${all.length - limit} more`] : all;
  }

  /** Calls without a result, counted by outcome. */
  unanswered(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const c of this.calls) if (c.outcome !== 'ok') out[c.outcome] = (out[c.outcome] ?? 0) + 1;
    return out;
  }

  /** Resolves when the workers have published their maxKeys (without stopping them early). */
  async finished(): Promise<void> {
    await Promise.all(this.workers);
  }

  get acknowledged(): number {
    let n = 0;
    for (const k of this.keys.values()) if (k.acked) n++;
    return n;
  }

  /** Resolves once `count` more keys have been acknowledged (or the time runs out). */
  async waitForAcks(count: number, timeoutMs: number): Promise<boolean> {
    const target = this.acknowledged + count;
    const deadline = Date.now() + timeoutMs;
    while (this.acknowledged < target) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  }

  private async worker(): Promise<void> {
    const max = this.options.maxKeys ?? Number.POSITIVE_INFINITY;
    // With every server gone (they crashed) there is nobody to publish to: the load ends.
    while (!this.stopping && this.next < max && this.cluster.anyServerRunning()) {
      const n = this.next++;
      const record: KeyRecord = { key: `${this.options.keyPrefix}-${n}`, event: this.options.mix(n), calls: 0 };
      this.keys.set(record.key, record);
      await this.publishUntilAnswered(record);
    }
  }

  private pickTarget(): ChaosServer | undefined {
    const live = this.options.targets().filter((t) => this.cluster.alive(t));
    if (live.length === 0) return undefined;
    return live[this.cursor++ % live.length];
  }

  private async publishUntilAnswered(record: KeyRecord): Promise<void> {
    const deadline = Date.now() + (this.options.keyDeadlineMs ?? 30_000);
    while (Date.now() < deadline) {
      const server = this.pickTarget();
      if (!server) {
        // Between a kill and the restart another server is up; with none left (they crashed) waiting is pointless.
        if (!this.cluster.anyServerRunning()) {
          record.refused = 'no_node_running';
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      record.calls++;
      const sentAt = Date.now();
      let outcome: string;
      let retryable = true;
      try {
        const answer = await this.cluster.rpc(server.url, 'event.publish', { event_name: record.event, payload: { key: record.key }, idempotency_key: record.key }, 15_000);
        if (answer.result) {
          outcome = 'ok';
          record.acked = { event_id: answer.result.event_id, run_id: answer.result.run_id, status: answer.result.status, server: server.label };
        } else {
          outcome = answer.error?.data?.code ?? `rpc_${answer.error?.code ?? 'unknown'}`;
          retryable = answer.error?.data?.retryable === true && !(this.options.giveUpOn ?? []).includes(outcome);
        }
      } catch (err) {
        if (!(err instanceof NoAnswer)) throw err;
        outcome = 'no_answer';
      }
      this.calls.push({ key: record.key, server: server.label, sentAt, answeredAt: Date.now(), outcome });
      if (record.acked) return;
      if (!retryable) {
        record.refused = outcome;
        return;
      }
      await new Promise((r) => setTimeout(r, 25 + Math.random() * 75));
    }
  }
}
