/**
 * Kysely builds and compiles a query on every call: immutable operation servers, then a visitor pass
 * over them. The data path's statements have one text per call site whatever their values (their
 * rows and ids travel as single JSON or array parameters), so that work can be done once: the
 * builder runs a single time with placeholders for the call's arguments, and every call sends the
 * compiled text with its own arguments in the placeholders' places. Building and compiling was a
 * visible share of a PostgreSQL server's CPU under publish load (docs/performance-notes.md: recording the change row, the
 * reset-lock and ingress reads, marking delivered, settling, the JSON inserts, the feed's reads).
 *
 * Only for builders whose text does not depend on the values: each argument must travel as one
 * parameter (not a list an `in` expands, not a value the builder inspects or leaves out); the first
 * call checks that every argument became a parameter.
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import type { Database } from './schema';

/** Stands for the call's argument at `index` while the builder runs once. */
class Placeholder {
  constructor(readonly index: number) {}
}

interface Compiled {
  sql: string;
  /** For each parameter of the text: the argument's index, or a value the builder wrote in itself. */
  parameters: ({ argument: number } | { value: unknown })[];
}

/** A query builder, or a `sql` template (which compiles against a handle). */
type Buildable<R> = Compilable<R> | RawBuilder<R>;

/**
 * A statement compiled on its first call and reused; `build` receives the executor and placeholder
 * arguments (typed as the real ones) and must use each argument as one parameter.
 */
export function compiledOnce<A extends unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Buildable<R>,
): (db: Kysely<Database>, ...args: A) => Promise<QueryResult<R>> {
  // Per database handle (its adapter, which its transactions share): one process may hold stores
  // of both engines (the benchmarks do), and their texts differ.
  const texts = new WeakMap<object, Compiled>();
  return (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let compiled = texts.get(adapter);
    if (!compiled) {
      try {
        compiled = compileWithPlaceholders(build, db, args.length);
      } catch (error) {
        return Promise.reject(error);
      }
      texts.set(adapter, compiled);
    }
    const parameters = compiled.parameters.map((p) => ('argument' in p ? args[p.argument] : p.value));
    return db.executeQuery(CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<R>);
  };
}

function compileWithPlaceholders<A extends unknown[], R>(build: (db: Kysely<Database>, ...args: A) => Buildable<R>, db: Kysely<Database>, arity: number): Compiled {
  const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
  const built = build(db, ...(placeholders as unknown as A));
  const query = 'isRawBuilder' in built ? built.compile(db) : built.compile();
  const used = new Set<number>();
  const parameters = query.parameters.map((p) => {
    if (!(p instanceof Placeholder)) return { value: p };
    used.add(p.index);
    return { argument: p.index };
  });
  if (used.size !== arity) throw new Error(`compiledOnce: ${arity - used.size} of ${arity} arguments are no parameter of ${query.sql}`);
  return { sql: query.sql, parameters };
}
