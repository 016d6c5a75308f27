/**
 * The database's clock as SQL, so that heartbeats and liveness compare times taken on one clock
 * however far apart the hosts' clocks are. Same text form as every other timestamp here (ISO 8601,
 * UTC, milliseconds), so text order is time order on both engines.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Engine } from './engine';

/** Now on the database's clock, `offsetMs` added (negative for the past). */
export function databaseNow(engine: Engine, offsetMs = 0): RawBuilder<string> {
  if (engine === 'postgres') {
    return sql<string>`to_char((clock_timestamp() + make_interval(secs => ${offsetMs / 1000})) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`${offsetMs / 1000} seconds`})`;
}
