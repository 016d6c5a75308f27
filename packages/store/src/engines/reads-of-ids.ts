import type { Expression, Kysely, SqlBool } from 'kysely';
import type { Database } from '../schema';
import { compiledOnce } from '../compiled-once';
import type { ReadOfIds } from './engine';

type CompiledRead = (db: Kysely<Database>, ids: unknown) => Promise<{ rows: unknown[] }>;

/**
 * engine.readByIds for an engine that passes a list of ids as one parameter (`ofIds` says how the
 * column meets it): each (read, column) pair is built and compiled once, one text for any count,
 * where an `in (…)` list was a new text per count, built and compiled on every call.
 */
export function readsByIdsParameter(
  ofIds: (column: string, ids: unknown) => Expression<SqlBool>,
  finish: (query: ReturnType<ReadOfIds<unknown>>) => ReturnType<ReadOfIds<unknown>> = (query) => query,
): <R>(db: Kysely<Database>, read: ReadOfIds<R>, column: string, ids: unknown) => Promise<R[]> {
  const reads = new WeakMap<ReadOfIds<unknown>, Map<string, CompiledRead>>();
  return async <R>(db: Kysely<Database>, read: ReadOfIds<R>, column: string, ids: unknown) => {
    let byColumn = reads.get(read as ReadOfIds<unknown>);
    if (!byColumn) reads.set(read as ReadOfIds<unknown>, (byColumn = new Map()));
    let compiled = byColumn.get(column);
    if (!compiled) byColumn.set(column, (compiled = compiledOnce((db, ids: unknown) => finish(read(db, ofIds(column, ids)) as ReturnType<ReadOfIds<unknown>>))));
    return (await compiled(db, ids)).rows as R[];
  };
}
