/**
 * PostgreSQL parses and plans every unnamed statement it is sent, and a multi-row insert written
 * as a VALUES list has a text per row count, so each batch paid for a fresh parse and plan of a
 * large statement. The data path's hot statements have one fixed text instead (their rows travel
 * as one JSON parameter) and end with PREPARED_SUFFIX: those go to node-postgres as named statements,
 * parsed once per connection, and after its first five calls a connection may keep one plan of a
 * statement for any values (a generic plan), made from the table sizes of that moment.
 *
 * Planning each call instead (plan_cache_mode = force_custom_plan, what this did before) cost
 * PostgreSQL CPU on every publish, most of it settling runs and marking deliveries done
 * (docs/performance-notes.md). But a
 * plan kept from an empty table is a scan where an index is due (marking delivered read every
 * leased row; settling, every open delivery), and PostgreSQL replaces it only when autovacuum next
 * records the table's size, up to a minute later on a new database under load. So a statement is
 * prepared again under a new name as its calls multiply (PREPARE_AGAIN_AT): each new name is
 * planned afresh, from the tables as they have grown by then.
 */
import type pg from 'pg';
import { sql, type RawBuilder } from 'kysely';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { textPostgresCanHold } from './engines/postgres/postgres-text';

/** The suffix that makes a statement a named, prepared one on PostgreSQL (a comment elsewhere). */
export const PREPARED_SUFFIX = ' /* prepared */';

/** Ends a statement with PREPARED_SUFFIX: `.modifyEnd(prepared)` on a builder, `${prepared}` in `sql`. */
export const prepared: RawBuilder<unknown> = sql.raw(PREPARED_SUFFIX);

/**
 * Calls of one marked statement in this process after which it gets a new name (and each
 * connection prepares and plans it again): 64 calls are about a second of publishes under load,
 * when a new database's tables are no longer empty. Four names per statement at most, so each
 * connection keeps a few prepared statements per call site.
 */
export const PREPARE_AGAIN_AT: readonly number[] = [64, 64 ** 2, 64 ** 3];

/**
 * Marks a statement whose answer is not read (a transaction's change row, a publish's runs, a
 * completion's emitted events): on PostgreSQL, inside a transaction, it is held and sent in one
 * write with the statement after it (the commit, at the latest), as a transaction's `begin` is
 * with its first statement. Each write to PostgreSQL's socket wakes its backend, and on a loaded
 * 2-core machine that costs more than the statement: a publish was 8 round trips and is 3, a
 * delivery's completion 6 and 3. The caller gets an empty answer at once; a failure of the held
 * statement fails the statement it went with instead (the commit answers ROLLBACK without an
 * error after one). Outside a transaction it is sent at once.
 */
export const SENT_WITH_NEXT_MARK = '/* sent with the next statement */';
export const sentWithNext: RawBuilder<unknown> = sql.raw(` ${SENT_WITH_NEXT_MARK}`);

/** What a held statement answers at once. */
const HELD_ANSWER = { command: '', rowCount: 0, rows: [], fields: [], oid: 0 } as unknown as pg.QueryResult;

/**
 * A pool whose clients send PREPARED statements by name. Names come from one map per process;
 * the marked texts are a fixed set (one per call site), so the map and each connection's
 * prepared statements stay small. A replaced connection (terminated, server restarted) starts
 * with none, and node-postgres prepares each again on first use. Every statement of the store
 * passes through here, so its bound strings are made text PostgreSQL can hold here too
 * (textPostgresCanHold).
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const statements = new Map<string, { base: string; name: string; calls: number }>();
  const nameOf = (text: string): string => {
    let statement = statements.get(text);
    if (statement === undefined) {
      const base = `sb_${statements.size + 1}`;
      statement = { base, name: base, calls: 0 };
      statements.set(text, statement);
    }
    statement.calls += 1;
    const again = PREPARE_AGAIN_AT.indexOf(statement.calls);
    if (again >= 0) statement.name = `${statement.base}_r${again + 1}`;
    return statement.name;
  };
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrapped.get(client);
      if (!wrapper) {
        // The callback form, promised here, not node-postgres's promise form: that one settles
        // through an extra `.catch` promise, and V8's allocation-site pretenuring then put result
        // rows straight into the old generation, and the young collections that promoted them
        // became long pauses: event.list's tail latency (docs/performance-notes.md). With
        // callbacks the rows die young.
        const send = (config: pg.QueryConfig): Promise<pg.QueryResult> =>
          new Promise<pg.QueryResult>((resolve, reject) => {
            client.query(config, (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
          });
        // A transaction's `begin`, and its statements marked SENT_WITH_NEXT_MARK, wait for the
        // statement after them and go out in one write with it.
        let beginHeld = false;
        let inTransaction = false;
        const held: pg.QueryConfig[] = [];
        wrapper = {
          query: ((text: string, values?: readonly unknown[]) => {
            if (text === 'begin') {
              beginHeld = true;
              inTransaction = true;
              return Promise.resolve(HELD_ANSWER);
            }
            // The held statements go out with the commit or rollback, and nothing is held after it.
            if (text === 'commit' || text === 'rollback') inTransaction = false;
            const config: pg.QueryConfig = { text, values: textPostgresCanHold(values) };
            if (text.endsWith(PREPARED_SUFFIX)) config.name = nameOf(text);
            if (inTransaction && text.includes(SENT_WITH_NEXT_MARK)) {
              held.push(config);
              return Promise.resolve(HELD_ANSWER);
            }
            if (!beginHeld && held.length === 0) return send(config);
            const leading = [...(beginHeld ? [{ text: 'begin' }] : []), ...held.splice(0)];
            beginHeld = false;
            // Pipelined (the pool's clients are in pipeline mode), and corked into one write.
            const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
            stream.cork();
            const led = Promise.all(leading.map(send));
            const answered = send(config);
            stream.uncork();
            // Handled below once the held ones have answered (they answer first).
            answered.catch(() => undefined);
            // A failed held statement fails the statement it went with: after a failed change row
            // the commit answers ROLLBACK without an error, and must not pass for a commit.
            return led.then(
              () => answered,
              (error: unknown) => answered.then(() => Promise.reject(error), () => Promise.reject(error)),
            );
          }) as unknown as PostgresPoolClient['query'],
          release: () => {
            // A begin held since a transaction sent nothing else: nothing began.
            beginHeld = false;
            inTransaction = false;
            held.length = 0;
            client.release();
          },
        };
        wrapped.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
