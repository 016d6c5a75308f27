/**
 * Opens the store on PostgreSQL (`SWITCHBOARD_DATABASE_URL=postgres://…`): Kysely's PostgresDialect
 * over a node-postgres pool of bounded size per process.
 */
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../../schema';
import { preparingPool } from '../../prepared-statements';

/** Connections per process: the dispatcher, group commits and reads share them. */
export const POSTGRES_POOL_SIZE = 10;

/**
 * Group commits in flight at once per process (each holds one pooled connection while it commits).
 * One: publishes and completions that arrive while a group commits wait and form the next one, so
 * groups are larger and each begin, change row, notify and commit is paid by more members; more
 * groups split the same load into smaller ones on two cores that PostgreSQL shares. One group
 * published faster than two, with less PostgreSQL CPU, and drained as fast
 * (docs/performance-notes.md).
 */
export const POSTGRES_PARALLEL_GROUPS = 1;

// int8 (counts, bigserial seq) as numbers: every such value here is far below 2^53, and the
// repositories and cursors treat them as numbers on both engines.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export function openPostgres(databaseUrl: string, poolSize = POSTGRES_POOL_SIZE): { db: Kysely<Database>; pool: pg.Pool } {
  // Pipeline mode lets a connection send a statement before the one ahead of it has answered: a
  // transaction's `begin` then goes out with its first statement, and a statement whose answer is
  // not read (its change row, a publish's runs) with the next one (SENT_WITH_NEXT_MARK). Nothing else here sends before an answer: each caller awaits its
  // statements in turn, and no cursor or `rows` option (refused in this mode) is used.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, pipeline: true });
  // A connection the server dropped (restart, pg_terminate_backend) is replaced on next use; an
  // idle client's error must not crash the process.
  pool.on('error', () => undefined);
  // A checked-out client (inside a transaction, between statements) has no pool listener: a
  // terminated backend would raise an unhandled 'error' and end the process. Its next query fails
  // instead, and the pool replaces it.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
  return { db, pool };
}

/** Where a database URL points, without its password (for logs and `Store.location`). */
export function redactedUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}

/**
 * The database could not be reached at open: refused, unknown host, wrong password, no such
 * database. Names the URL without its password and PostgreSQL's or the network's reason, so the
 * server can say it in one line instead of a stack.
 */
export class DatabaseUnreachableError extends Error {
  constructor(
    readonly location: string,
    readonly reason: string,
  ) {
    super(`cannot connect to PostgreSQL at ${location}: ${reason}`);
    this.name = 'DatabaseUnreachableError';
  }
}
