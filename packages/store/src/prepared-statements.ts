/**
 * PostgreSQL parses and plans every unnamed statement it is sent, and a multi-row insert written
 * as a VALUES list has a text per row count, so each batch paid for a fresh parse and plan of a
 * large statement. The data path's hot statements have one fixed text instead (their rows travel
 * as one JSON parameter) and end with PREPARED_SUFFIX: those go to node-postgres as named statements,
 * parsed once per connection (and planned for each call: see openPostgres).
 */
import type pg from 'pg';
import { sql, type RawBuilder } from 'kysely';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** The suffix that makes a statement a named, prepared one on PostgreSQL (a comment elsewhere). */
export const PREPARED_SUFFIX = ' /* prepared */';

/** Ends a statement with PREPARED_SUFFIX: `.modifyEnd(prepared)` on a builder, `${prepared}` in `sql`. */
export const prepared: RawBuilder<unknown> = sql.raw(PREPARED_SUFFIX);

/**
 * A pool whose clients send PREPARED statements by name. Names come from one map per process;
 * the marked texts are a fixed set (one per call site), so the map and each connection's
 * prepared statements stay small. A replaced connection (terminated, server restarted) starts
 * with none, and node-postgres prepares each again on first use.
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      name = `sb_${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrapped.get(client);
      if (!wrapper) {
        wrapper = {
          // The callback form, promised here, not node-postgres's promise form: that one settles
          // through an extra `.catch` promise, and V8's allocation-site pretenuring then put result
          // rows straight into the old generation. A loop of 51-row reads promoted about 3 MB per
          // young collection, and each took 3-9 ms instead of 0.2-0.4 (the pauses were event.list's
          // p99 tail); with callbacks the rows die young.
          query: ((text: string, values?: readonly unknown[]) =>
            new Promise<pg.QueryResult>((resolve, reject) => {
              const config: pg.QueryConfig = { text, values: values as unknown[] };
              if (text.endsWith(PREPARED_SUFFIX)) config.name = nameOf(text);
              client.query(config, (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
            })) as unknown as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        wrapped.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
