/**
 * PostgreSQL: statements marked PREPARED are sent by name, parsed once per connection, and still
 * work on the connection that replaces a terminated one; every store connection plans each call
 * for its own values.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Store } from '@switchboard/store';
import type { Kysely } from 'kysely';
import { databaseOf, openTestStore, sql, testDatabaseFor, testEngine } from '@switchboard/store/testing';
import { PREPARED_SUFFIX, preparingPool } from '../src/prepared-statements';

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

  it("plans each call for its values on the store's connections, and prepares the data path's writes", async () => {
    const store: Store = await openTestStore(dir);
    try {
      const r = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(databaseOf(store));
      expect(r.rows[0]!.plan_cache_mode).toBe('force_custom_plan');
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
