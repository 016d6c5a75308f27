/**
 * One server process per PostgreSQL database, for now: the engine runs the same repositories as
 * SQLite, but the guarantees that need several processes to cooperate (node registry, reset and
 * idempotency claims across processes, a change feed; issue #10) are not built yet. A session-level
 * advisory lock on a connection of its own says so: PostgreSQL drops it when the holder's
 * connection ends, so a crashed or killed server never leaves the database locked.
 */
import pg from 'pg';
import { redactedUrl } from './open-postgres';
import type { DataDirLock } from './data-dir-lock';

/** The advisory lock key ("SWBD"). */
const SERVER_LOCK_KEY = 0x53574244;

export class DatabaseInUseError extends Error {
  constructor(
    readonly databaseUrl: string,
    readonly holderPid: number | undefined,
  ) {
    super(
      `the database ${redactedUrl(databaseUrl)} is in use by another Switchboard server${holderPid ? ` (PostgreSQL backend pid ${holderPid})` : ''}; ` +
        'one server process per database is supported for now: stop it first, or give this one another SWITCHBOARD_DATABASE_URL',
    );
    this.name = 'DatabaseInUseError';
  }
}

export async function lockDatabase(databaseUrl: string): Promise<DataDirLock> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // A dropped lock connection (a PostgreSQL restart) must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [SERVER_LOCK_KEY]);
  if (!rows[0]?.locked) {
    const holder = await client
      .query<{ pid: number }>("select pid from pg_locks where locktype = 'advisory' and objid = $1 and granted limit 1", [SERVER_LOCK_KEY])
      .catch(() => ({ rows: [] as { pid: number }[] }));
    await client.end();
    throw new DatabaseInUseError(databaseUrl, holder.rows[0]?.pid);
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      void client.end().catch(() => undefined);
    },
  };
}
