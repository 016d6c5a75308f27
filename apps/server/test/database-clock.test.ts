/**
 * On PostgreSQL several hosts write the timestamps that order pages and cursors, so a server takes
 * them from the database's clock, not from its host's. The test moves the database's clock an hour
 * ahead of this host's (a `clock_timestamp()` earlier on the database's search path) and reads what
 * a server wrote. PostgreSQL only: on SQLite there is one host.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '@switchboard/store';
import { databaseOf, openTestStore, sql, testEngine } from '@switchboard/store/testing';
import { CONTROL_BUNDLE, ok } from './control-helpers';
import { startTestServer } from './harness';

const HOUR_MS = 3_600_000;

describe.runIf(testEngine() === 'postgres')("a server's timestamps on PostgreSQL", () => {
  it("come from the database's clock, not the host's", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-database-clock-'));
    // Migrated with an injected clock (so this store reads no time), then the clock moved.
    const setup = await openTestStore(dataDir, { clock: systemClock });
    const db = databaseOf(setup);
    await sql`create schema skewed_clock`.execute(db);
    await sql`create function skewed_clock.clock_timestamp() returns timestamptz language sql as 'select pg_catalog.clock_timestamp() + interval ''1 hour'''`.execute(db);
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(db);
    await sql.raw(`alter database "${rows[0]!.name}" set search_path = public, skewed_clock, pg_catalog`).execute(db);
    await setup.close();

    const server = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    try {
      const before = Date.now();
      const published = await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
      const after = Date.now();
      const listed = await ok(server, 'event.list', { filter: { event_id: published.event_id } });
      const createdAt = Date.parse(listed.events[0]!.created_at);
      expect(createdAt).toBeGreaterThanOrEqual(before + HOUR_MS - 5_000);
      expect(createdAt).toBeLessThanOrEqual(after + HOUR_MS + 5_000);
    } finally {
      await server.close();
    }
  });
});
