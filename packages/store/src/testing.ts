/**
 * For tests and benchmarks only: the Kysely instance behind a store, to arrange states and count
 * rows that no repository method exposes. Product code goes through the repositories (lint forbids
 * importing this from the runtime's and the server's sources).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema';
import type { Store } from './store';

export function databaseOf(store: Store): Kysely<Database> {
  return store['db'];
}

type CountedTable = 'events' | 'deliveries' | 'dead_letters' | 'runs' | 'turns' | 'conversations' | 'mailbox_items' | 'ingress_queue' | 'logs';

/** Rows of a table, optionally only those with `status` equal to the given value. */
export async function countRows(store: Store, table: CountedTable, status?: string): Promise<number> {
  let q = databaseOf(store).selectFrom(table as 'events').select((eb) => eb.fn.countAll<number>().as('n'));
  if (status !== undefined) q = q.where('status' as never, '=', status as never);
  const r = await q.executeTakeFirstOrThrow();
  return Number(r.n);
}

export { sql } from 'kysely';
export type { Kysely, Transaction } from 'kysely';
