/**
 * Migration 015 (issue 36): dead-letter records get their dead letter's cause, the rollup is
 * rebuilt by (component, error code, cause), and a state an operator gave the old
 * `dispatcher · DEAD_LETTER` group survives on every cause it splits into, with its activity.
 * Runs on the test engine (SQLite, or PostgreSQL with SWITCHBOARD_TEST_DATABASE_URL).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { Store, deadLetterCauseKey, incidentGroupKey } from '@switchboard/store';
import { testDatabaseFor, testEngine } from '@switchboard/store/testing';
import { migrationProvider } from '../../src/migrations';
import { STORE_ENGINES } from '../../src/engines/index';
import { openPostgres } from '../../src/engines/postgres/open-postgres';
import { openSqlite } from '../../src/engines/sqlite/open-sqlite';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const T0 = '2026-04-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

it('splits the dead-letter incident by subscriber and reason, and its state and activity move to each cause', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-015-'));
  dirs.push(dataDir);
  const url = await testDatabaseFor(dataDir, { empty: true });
  const engine = testEngine();
  const opened = url ? openPostgres(url, 2) : openSqlite(dataDir);
  const db = opened.db as Kysely<any>;
  const before = await new Migrator({ db, provider: migrationProvider(STORE_ENGINES[engine]) }).migrateTo('013_write_guard');
  expect(before.error).toBeUndefined();

  const deadLetters = [
    { id: 'dl-a1', subscriber: 'pay-refund', reason: 'tool_timeout' },
    { id: 'dl-a2', subscriber: 'pay-refund', reason: 'tool_timeout' },
    { id: 'dl-b1', subscriber: 'triage-agent', reason: 'output_unparseable' },
  ];
  for (const [i, d] of deadLetters.entries()) {
    await db
      .insertInto('dead_letters')
      .values({ dead_letter_id: d.id, event_id: `evt-${i}`, event_seq: i, event_created_at: at(i), subscriber_id: d.subscriber, reason_code: d.reason, chain_depth: 0, created_at: at(i), failure_type: 'timeout', retry_count: 2 })
      .execute();
  }
  const log = (n: number, fields: Record<string, unknown>) => ({
    log_id: `log-${n}`,
    ts: at(n),
    level: 'error',
    level_rank: 3,
    component: 'dispatcher',
    error_code: 'DEAD_LETTER',
    message: `record ${n}`,
    is_mcp: 0,
    ...fields,
  });
  await db
    .insertInto('logs')
    .values([
      log(0, { dead_letter_id: 'dl-a1' }),
      log(1, { dead_letter_id: 'dl-a2' }),
      log(2, { dead_letter_id: 'dl-b1' }),
      // Its dead letter is gone (a reset kept the record): no cause.
      log(3, { dead_letter_id: 'dl-gone' }),
      log(4, { component: 'mcp.payments', error_code: 'MCP_TIMEOUT', is_mcp: 1 }),
    ])
    .execute();
  await db
    .insertInto('incident_states')
    .values({ component: 'dispatcher', error_key: 'DEAD_LETTER', state: 'acknowledged', changed_at: at(10), actor_token_id: 'tok-1', note: 'on it' })
    .execute();
  await db
    .insertInto('incident_activity')
    .values([
      { component: 'dispatcher', error_key: 'DEAD_LETTER', ts: at(9), actor_token_id: 'tok-1', state: 'ignored', note: null },
      { component: 'dispatcher', error_key: 'DEAD_LETTER', ts: at(10), actor_token_id: 'tok-1', state: 'acknowledged', note: 'on it' },
    ])
    .execute();
  await db.destroy();

  const store = url ? await Store.open({ databaseUrl: url }) : await Store.open({ dataDir });
  try {
    // Groups latest first, each with the state an operator gave it (the runtime's list order and default).
    const summarize = async () => {
      const states = new Map((await store.incidents.states()).map((s) => [incidentGroupKey(s), s.state]));
      const groups = await store.incidents.windowGroups({ windowStart: at(-60), windowEnd: at(60), histogramBuckets: 0 });
      return groups.sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0)).map((i) => [i.component, i.error_code, i.cause_key, i.count, states.get(incidentGroupKey(i)) ?? 'open']);
    };
    expect(await summarize()).toEqual([
      ['mcp.payments', 'MCP_TIMEOUT', '', 1, 'open'],
      ['dispatcher', 'DEAD_LETTER', '', 1, 'acknowledged'],
      ['dispatcher', 'DEAD_LETTER', deadLetterCauseKey('triage-agent', 'output_unparseable'), 1, 'acknowledged'],
      ['dispatcher', 'DEAD_LETTER', deadLetterCauseKey('pay-refund', 'tool_timeout'), 2, 'acknowledged'],
    ]);
    for (const causeKey of [deadLetterCauseKey('pay-refund', 'tool_timeout'), deadLetterCauseKey('triage-agent', 'output_unparseable'), '']) {
      const key = { component: 'dispatcher', error_code: 'DEAD_LETTER', cause_key: causeKey };
      const activity = await store.incidents.activity(key);
      expect(activity.map((a) => [a.ts, a.state, a.note])).toEqual([
        [at(9), 'ignored', null],
        [at(10), 'acknowledged', 'on it'],
      ]);
      const view = (await store.incidents.states()).find((s) => incidentGroupKey(s) === JSON.stringify(['dispatcher', 'DEAD_LETTER', causeKey]));
      expect(view).toMatchObject({ state: 'acknowledged', actor_token_id: 'tok-1', note: 'on it' });
    }
    // A new change to one cause leaves the others as they were.
    const refund = { component: 'dispatcher', error_code: 'DEAD_LETTER', cause_key: deadLetterCauseKey('pay-refund', 'tool_timeout') };
    await store.incidents.setState(refund, { state: 'resolved', actor_token_id: 'tok-2', note: null, ignore_until: null, ignore_occurrences: null, now: at(20) });
    expect((await summarize()).map(([, , causeKey, , state]) => [causeKey, state])).toEqual([
      ['', 'open'],
      ['', 'acknowledged'],
      [deadLetterCauseKey('triage-agent', 'output_unparseable'), 'acknowledged'],
      [deadLetterCauseKey('pay-refund', 'tool_timeout'), 'resolved'],
    ]);
  } finally {
    await store.close();
  }
});
