/**
 * PostgreSQL: statements marked PREPARED are sent by name, parsed once per connection, prepared
 * again under a new name as their calls multiply (so a plan kept from small tables is replaced),
 * and still work on the connection that replaces a terminated one. A transaction's `begin` goes
 * out with its first statement and its change row with its commit, and a held statement's failure
 * fails the commit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Store } from '@switchboard/store';
import type { Kysely } from 'kysely';
import { openTestStore, sql, testDatabaseFor, testEngine } from '@switchboard/store/testing';
import { PREPARE_AGAIN_AT, PREPARED_SUFFIX, SENT_WITH_NEXT_MARK, preparingPool } from '../../../src/prepared-statements';
import { openPostgres } from '../../../src/engines/postgres/open-postgres';

describe.runIf(testEngine() === 'postgres')('prepared statements on PostgreSQL', () => {
  let dir: string;
  let url: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-prepared-'));
    url = (await testDatabaseFor(dir))!;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sends a marked statement by name, once per connection, and prepares it again on a new connection', async () => {
    const raw = new pg.Pool({ connectionString: url, max: 1 });
    raw.on('error', () => undefined);
    raw.on('connect', (c) => c.on('error', () => undefined));
    const pool = preparingPool(raw);
    /** The statements prepared on the pool's connection, and that connection's backend. */
    const preparedOnConnection = async () => {
      const client = await pool.connect();
      try {
        const texts = await client.query<{ statement: string }>('select statement from pg_prepared_statements order by name', []);
        const pid = await client.query<{ pid: number }>('select pg_backend_pid() as pid', []);
        return { texts: texts.rows.map((row) => row.statement), pid: pid.rows[0]!.pid };
      } finally {
        client.release();
      }
    };
    const marked = `select $1::int + 1 as n${PREPARED_SUFFIX}`;
    const run = async (n: number) => {
      const client = await pool.connect();
      try {
        await client.query('select $1::int as plain', [n]);
        return (await client.query<{ n: number }>(marked, [n])).rows;
      } finally {
        client.release();
      }
    };
    try {
      expect(await run(1)).toEqual([{ n: 2 }]);
      expect(await run(2)).toEqual([{ n: 3 }]);
      const before = await preparedOnConnection();
      expect(before.texts).toEqual([marked]);

      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query('select pg_terminate_backend($1)', [before.pid]);
      await admin.end();
      // The pool drops the terminated connection (at once, or after its next query fails).
      let answer: unknown;
      for (let i = 0; i < 3 && answer === undefined; i++) answer = await run(41).catch(() => undefined);
      expect(answer).toEqual([{ n: 42 }]);
      const after = await preparedOnConnection();
      expect(after.pid).not.toBe(before.pid);
      expect(after.texts).toEqual([marked]);
    } finally {
      await pool.end();
    }
  });

  it('prepares a statement again under a new name once its calls reach PREPARE_AGAIN_AT, planned afresh', async () => {
    const raw = new pg.Pool({ connectionString: url, max: 1 });
    const pool = preparingPool(raw);
    const client = await pool.connect();
    try {
      await client.query('create table plan_growth (id int primary key, note text)', []);
      const marked = `select note from plan_growth where id = any($1::int[])${PREPARED_SUFFIX}`;
      const calls = PREPARE_AGAIN_AT[0]!;
      for (let i = 0; i < calls - 1; i++) await client.query(marked, [[i]]);
      /** Each name prepared on the connection, and how many calls it planned (once for any values, or for their own). */
      const names = async () =>
        (
          await client.query<{ name: string; calls: number }>(
            'select name, generic_plans + custom_plans as calls from pg_prepared_statements order by name',
            [],
          )
        ).rows;
      expect(await names()).toEqual([{ name: 'sb_1', calls: calls - 1 }]);
      await client.query('insert into plan_growth select n, null from generate_series(1, 20000) n', []);
      await client.query(marked, [[7]]);
      // The call that reached the threshold went out under a new name: parsed and planned again,
      // now that the table holds rows.
      expect(await names()).toEqual([
        { name: 'sb_1', calls: calls - 1 },
        { name: 'sb_1_r1', calls: 1 },
      ]);
    } finally {
      await client.query('drop table if exists plan_growth', []).catch(() => undefined);
      client.release();
      await pool.end();
    }
  });

  it("prepares the data path's writes on the store's connections", async () => {
    const store: Store = await openTestStore(dir);
    try {
      const now = new Date().toISOString();
      const statements = await store.transaction(async (tx) => {
        await store.runWrites.appendEvent(
          tx,
          { event_id: 'evt-prepared', event_name: 'tick', created_at: now, source: 'test', payload: '{}', entity_id: null, run_id: null, chain_depth: 0, parent_event_id: null, has_dead_letter: 0, replay_of_event_id: null },
          [],
        );
        // The transaction's own connection: prepared statements are per connection.
        const own = tx as unknown as Kysely<Database>;
        return (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(own)).rows.map((row) => row.statement);
      });
      expect(statements.some((text) => text.startsWith('insert into "events"') && text.endsWith(PREPARED_SUFFIX))).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe.runIf(testEngine() === 'postgres')("a transaction's begin and change row on PostgreSQL", () => {
  let dir: string;
  let db: Kysely<Database>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-held-'));
    // The store's own pool (pipeline mode on), one connection: every statement below shares it.
    db = openPostgres((await testDatabaseFor(dir))!, 1).db;
    await sql`create table held_rows (id int primary key)`.execute(db);
  });
  afterAll(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Writes to the connection's socket while `fn` runs (one per write call the socket makes to the kernel). */
  async function writesDuring(fn: () => Promise<void>): Promise<number> {
    // The pool's one connection is open before counting starts.
    await sql`select 1`.execute(db);
    const proto = net.Socket.prototype as unknown as { _writev: (...a: unknown[]) => unknown; _write: (...a: unknown[]) => unknown };
    const [writev, write] = [proto._writev, proto._write];
    let writes = 0;
    proto._writev = function (this: unknown, ...a: unknown[]) {
      writes++;
      return writev.apply(this, a);
    };
    proto._write = function (this: unknown, ...a: unknown[]) {
      writes++;
      return write.apply(this, a);
    };
    try {
      await fn();
    } finally {
      proto._writev = writev;
      proto._write = write;
    }
    return writes;
  }

  /** held_rows' row `id` as a connection of its own sees it: there only once committed. */
  async function committedRow(id: number): Promise<unknown[]> {
    const other = new pg.Client({ connectionString: (await testDatabaseFor(dir))! });
    await other.connect();
    try {
      return (await other.query('select id from held_rows where id = $1', [id])).rows;
    } finally {
      await other.end();
    }
  }

  it('sends begin with the first statement and the marked change row with the commit: two writes for four statements', async () => {
    const writes = await writesDuring(() =>
      db.transaction().execute(async (trx) => {
        await sql`insert into held_rows values (1)`.execute(trx);
        await sql.raw(`select 1 as change_row ${SENT_WITH_NEXT_MARK}`).execute(trx);
      }),
    );
    expect(writes).toBe(2);
    expect((await sql<{ id: number }>`select id from held_rows`.execute(db)).rows).toEqual([{ id: 1 }]);
  });

  it("fails the commit when the held change row fails, and keeps none of the transaction's writes", async () => {
    const committing = db.transaction().execute(async (trx) => {
      await sql`insert into held_rows values (2)`.execute(trx);
      // Held: answered at once, sent with the commit. PostgreSQL answers that commit ROLLBACK, without an error.
      await sql.raw(`select 1 / 0 as change_row ${SENT_WITH_NEXT_MARK}`).execute(trx);
    });
    await expect(committing).rejects.toThrow(/division by zero/);
    expect((await sql<{ id: number }>`select id from held_rows where id = 2`.execute(db)).rows).toEqual([]);
    // The connection is usable, outside any transaction: a write on it stays written.
    await sql`insert into held_rows values (3)`.execute(db);
    expect(await committedRow(3)).toEqual([{ id: 3 }]);
  });

  it('sends consecutive marked statements together with the next one, and fails that one with the first failure among them', async () => {
    const writes = await writesDuring(() =>
      db.transaction().execute(async (trx) => {
        await sql.raw(`insert into held_rows values (10) ${SENT_WITH_NEXT_MARK}`).execute(trx);
        await sql.raw(`insert into held_rows values (11) ${SENT_WITH_NEXT_MARK}`).execute(trx);
        await sql`insert into held_rows values (12)`.execute(trx);
      }),
    );
    // begin, both held rows and the plain insert in one write; the commit in the other.
    expect(writes).toBe(2);
    expect((await sql<{ id: number }>`select id from held_rows where id between 10 and 12 order by id`.execute(db)).rows).toEqual([{ id: 10 }, { id: 11 }, { id: 12 }]);

    const failing = db.transaction().execute(async (trx) => {
      await sql.raw(`insert into held_rows values (13) ${SENT_WITH_NEXT_MARK}`).execute(trx);
      await sql.raw(`insert into held_rows values (1 / 0) ${SENT_WITH_NEXT_MARK}`).execute(trx);
      // Sent after a failed statement, PostgreSQL answers this "transaction is aborted": the held
      // failure is what the caller hears.
      await sql`insert into held_rows values (14)`.execute(trx);
    });
    await expect(failing).rejects.toThrow(/division by zero/);
    expect((await sql<{ id: number }>`select id from held_rows where id in (13, 14)`.execute(db)).rows).toEqual([]);
  });

  it('sends a marked statement at once outside a transaction: nothing follows it to go out with', async () => {
    await sql.raw(`insert into held_rows values (20) ${SENT_WITH_NEXT_MARK}`).execute(db);
    expect(await committedRow(20)).toEqual([{ id: 20 }]);
  });

  /** Whether the next statement on `conn` runs inside an open transaction (its start time is older than the statement's). */
  const inTransaction = async (conn: Kysely<Database>) =>
    (await sql<{ open: boolean }>`select now() <> statement_timestamp() as open`.execute(conn)).rows[0]!.open;

  it('a transaction that rolled back before any statement leaves its connection outside a transaction', async () => {
    await db.connection().execute(async (conn) => {
      // What Kysely sends for a transaction whose work threw at once: the held begin goes with the rollback.
      await sql`begin`.execute(conn);
      await sql`rollback`.execute(conn);
      // Held on the same checkout, a begin that stayed held would ride on this statement.
      expect(await inTransaction(conn)).toBe(false);
    });
  });

  it('a begin still held when its connection goes back to the pool is dropped, not sent with the next user\'s statement', async () => {
    await db.connection().execute((conn) => sql`begin`.execute(conn));
    expect(await db.connection().execute(inTransaction)).toBe(false);
  });
});
