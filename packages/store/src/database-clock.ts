/**
 * On PostgreSQL, several hosts write timestamps that order pages and cursors (`created_at`), so
 * they must come from one clock: this one reads the database server's clock, measures this host's
 * offset from it (at the midpoint of the round trip) and answers `now()` as host time plus that
 * offset, without a query per call. It is measured again every minute, and never goes backwards
 * within the process, so a correction does not reorder what this server writes.
 */
import { sql, type Kysely } from 'kysely';
import type { Clock } from './clock';
import type { Database } from './schema';

const RESYNC_MS = 60_000;

export class DatabaseClock implements Clock {
  private offsetMs = 0;
  private last = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Kysely<Database>) {}

  now(): Date {
    const t = Math.max(this.last, Date.now() + this.offsetMs);
    this.last = t;
    return new Date(t);
  }

  async sync(): Promise<void> {
    // The best of three samples: the shortest round trip bounds the error best.
    let best: { rtt: number; offset: number } | undefined;
    for (let i = 0; i < 3; i++) {
      const sent = Date.now();
      const { rows } = await sql<{ ms: string | number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`.execute(this.db);
      const received = Date.now();
      const rtt = received - sent;
      const offset = Number(rows[0]!.ms) - (sent + rtt / 2);
      if (!best || rtt < best.rtt) best = { rtt, offset };
    }
    // Not rounded: half a millisecond of rounding would let two servers' clocks differ by a whole one
    // (a delivery one server stamps due now is not yet due to the other's claim until then).
    this.offsetMs = best!.offset;
  }

  start(): void {
    this.timer = setInterval(() => void this.sync().catch(() => undefined), RESYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
