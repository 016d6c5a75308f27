/**
 * A PostgreSQL server with no room for another connection (max_connections, a role's or a
 * database's connection limit: SQLSTATE 53300) is a passing condition the client may retry:
 * STORE_UNAVAILABLE, never INTERNAL. PostgreSQL only.
 */
import { describe, expect, it } from 'vitest';
import { databaseOf, sql, testEngine } from '@switchboard/store/testing';
import { CONTROL_BUNDLE } from './control-helpers';
import { startTestServer } from './harness';

describe.runIf(testEngine() === 'postgres')('a database with no room for another connection', () => {
  it('answers STORE_UNAVAILABLE (retryable) to calls that need one, and serves them again once it has room', async () => {
    const server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    const db = databaseOf(server.store);
    const { rows } = await sql<{ name: string; open: number }>`
      select current_database() as name, (select count(*) from pg_stat_activity where datname = current_database())::int as open`.execute(db);
    const name = rows[0]!.name;
    try {
      // Only the connections already open may stay: the pool's next one is refused.
      await sql.raw(`alter database "${name}" connection limit ${rows[0]!.open}`).execute(db);
      const answers = await Promise.all(Array.from({ length: 24 }, () => server.rpc('event.list', { limit: 500 })));
      const codes = answers.map((a) => a.error?.data.code ?? 'ok');
      expect(codes).toContain('STORE_UNAVAILABLE');
      expect(codes.filter((c) => c !== 'ok' && c !== 'STORE_UNAVAILABLE')).toEqual([]);
      for (const a of answers.filter((x) => x.error)) expect(a.error!.data.retryable).toBe(true);
      expect(server.logs.filter((l) => l.msg === 'handler fault')).toEqual([]);
      expect(server.logs.some((l) => l.msg === 'store unavailable' && String(l.error).includes('too many connections'))).toBe(true);
    } finally {
      await sql.raw(`alter database "${name}" connection limit -1`).execute(db);
    }
    const again = await Promise.all(Array.from({ length: 24 }, () => server.rpc('event.list', { limit: 500 })));
    expect(again.map((a) => a.error?.data.code ?? 'ok')).toEqual(again.map(() => 'ok'));
    await server.close();
  }, 60_000);
});
