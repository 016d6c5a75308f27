/**
 * Crash test for the audit trail: a server process is SIGKILLed at a random moment under a mix of
 * mutations (publishes, pause and resume, incident updates, user.create), again and again. Then
 * every committed effect must have its audit record and every "ok" record its effect, and the
 * chain must verify. On PostgreSQL too when SWITCHBOARD_TEST_DATABASE_URL is set.
 */
import { expect, it } from 'vitest';
import { openTestStore, databaseOf, sql, testDatabaseFor } from '@switchboard/store/testing';
import { crashServers } from './crash-servers';
import type { ServerProcess } from './server-process';

const TOKEN = 'sbk_audit_crash_token_0001';
const ROUNDS = 4;
const servers = crashServers('audit-crash', TOKEN);

interface Counts {
  publishes: number;
  pauses: number;
  incidentUpdates: number;
  users: number;
  answered: number;
  lost: number;
}

/**
 * Fires mutations from 12 workers and SIGKILLs the server once a random number of them (10 to 40)
 * were answered in this round, with the others in flight; resolves once the server is gone.
 */
async function mutateUntilKilled(server: ServerProcess, incidentId: string, round: number, counts: Counts): Promise<void> {
  let stopped = false;
  let answeredThisRound = 0;
  const killAt = 10 + Math.floor(Math.random() * 31);
  const send = async (method: string, params: unknown) => {
    try {
      const answer = (await servers.call(server.url, { jsonrpc: '2.0', id: 1, method, params })) as { result?: unknown };
      if (answer.result !== undefined) counts.answered++;
      if (++answeredThisRound === killAt) server.child.kill('SIGKILL');
    } catch {
      counts.lost++;
      stopped = true;
    }
  };
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const pick = (w + i) % 10;
      if (pick < 6) {
        counts.publishes++;
        await send('event.publish', { event_name: 'tick', payload: { n: i, round, worker: w } });
      } else if (pick === 6) {
        counts.pauses++;
        await send(i % 2 ? 'runtime.resume' : 'runtime.pause', i % 2 ? {} : { reason: `crash round ${round}` });
      } else if (pick < 9) {
        counts.incidentUpdates++;
        await send('runtime.incident_update', { incident_id: incidentId, state: i % 2 ? 'acknowledged' : 'open', note: `round ${round} worker ${w} step ${i}` });
      } else {
        counts.users++;
        await send('user.create', { display_name: `crash-user-${round}-${w}-${i}`, role: 'viewer' });
      }
    }
  };
  await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
  await server.exited;
}

it('kill -9 under a mix of mutations: every committed effect has its audit record and no record lacks its effect', async () => {
  const databaseUrl = await testDatabaseFor(servers.dataDir);
  const env: Record<string, string> = databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : {};
  let server = await servers.start(env);
  // One incident to update: each charge.requested dead-letters at charge-card.
  await servers.rpc(server.url, 'event.publish', { event_name: 'charge.requested', payload: { i: 0 } });
  let incidentId: string | undefined;
  await expect
    .poll(
      async () => {
        const { incidents } = await servers.rpc(server.url, 'runtime.incidents', { component: 'dispatcher' });
        incidentId = incidents.find((i) => i.error_code === 'DEAD_LETTER')?.incident_id;
        return incidentId;
      },
      { timeout: 10_000, interval: 100, message: 'the dead-letter incident' },
    )
    .toBeDefined();

  const counts: Counts = { publishes: 0, pauses: 0, incidentUpdates: 0, users: 0, answered: 0, lost: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    await mutateUntilKilled(server, incidentId!, round, counts);
    server = await servers.start(env);
  }
  // Open ingress again so that queued publishes become runs (the resume is recorded too).
  await servers.rpc(server.url, 'runtime.resume');
  server.child.kill('SIGTERM');
  await server.exited;

  const store = await openTestStore(servers.dataDir);
  try {
    const db = databaseOf(store);
    const okTargets = async (method: string) =>
      new Set(
        (await sql<{ target_id: string }>`select t.target_id from audit_targets t join audit a on a.seq = t.seq where a.method = ${method} and a.outcome = 'ok'`.execute(db)).rows.map((r) => r.target_id),
      );
    const okCount = async (method: string) => Number((await sql<{ n: number }>`select count(*) as n from audit where method = ${method} and outcome = 'ok'`.execute(db)).rows[0]!.n);

    // Publishes: every run a publish made (an event at depth 0, or still queued) has an ok
    // record naming it; every ok record names a run that exists.
    const publishedRuns = new Set(
      [
        ...(await sql<{ run_id: string }>`select run_id from events where chain_depth = 0`.execute(db)).rows,
        ...(await sql<{ run_id: string }>`select run_id from ingress_queue`.execute(db)).rows,
      ].map((r) => r.run_id),
    );
    const recordedPublishes = await okTargets('event.publish');
    const publishesWithoutRecord = [...publishedRuns].filter((id) => !recordedPublishes.has(id));
    const recordedRuns = (await sql<{ run_id: string }>`select t.target_id as run_id from audit_targets t join audit a on a.seq = t.seq where a.method = 'event.publish' and a.outcome = 'ok' and t.target_id like 'run_%'`.execute(db)).rows.map((r) => r.run_id);
    const recordsWithoutRun = recordedRuns.filter((id) => !publishedRuns.has(id));

    // Users: every crash-user row has its record, every ok record its row.
    const users = new Set((await sql<{ id: string }>`select id from users where display_name like 'crash-user-%'`.execute(db)).rows.map((r) => r.id));
    const recordedUsers = [...(await okTargets('user.create'))].filter((id) => id.startsWith('usr_'));
    const usersWithoutRecord = [...users].filter((id) => !recordedUsers.includes(id));
    const recordsWithoutUser = recordedUsers.filter((id) => !users.has(id));

    // Incident updates: one activity row per committed update, one ok record per activity row.
    const activity = Number((await sql<{ n: number }>`select count(*) as n from incident_activity where note like 'round %'`.execute(db)).rows[0]!.n);
    const incidentRecords = await okCount('runtime.incident_update');

    // Pauses: each "ingress paused by" log line is a pause that changed the state; each came with its record.
    const pauseLogs = Number((await sql<{ n: number }>`select count(*) as n from logs where message like 'ingress paused by %'`.execute(db)).rows[0]!.n);
    const pauseRecords = await okCount('runtime.pause');

    const verdict = await store.audit.verify();
    const summary = {
      ...counts,
      runs: publishedRuns.size,
      publish_records: recordedRuns.length,
      users_created: users.size,
      incident_activity: activity,
      incident_records: incidentRecords,
      pause_logs: pauseLogs,
      pause_records: pauseRecords,
      chain: verdict,
    };
    console.log('audit crash test', JSON.stringify(summary));
    expect(counts.lost).toBeGreaterThanOrEqual(ROUNDS);
    expect(publishedRuns.size).toBeGreaterThan(0);
    expect({ publishesWithoutRecord, recordsWithoutRun, usersWithoutRecord, recordsWithoutUser }).toEqual({
      publishesWithoutRecord: [],
      recordsWithoutRun: [],
      usersWithoutRecord: [],
      recordsWithoutUser: [],
    });
    expect(incidentRecords).toBe(activity);
    expect(pauseRecords).toBeGreaterThanOrEqual(pauseLogs);
    expect(verdict.ok).toBe(true);
  } finally {
    await store.close();
  }
}, 300_000);
