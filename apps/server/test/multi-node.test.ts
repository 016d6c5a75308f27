/**
 * Two real servers (servers) on one PostgreSQL database: what one server commits reaches the other
 * server's consoles through the change feed — a change as `runtime.changed`, a reset as
 * `runtime.reset` (once per server) — and a token revoked through one server is refused by the other,
 * whose token memory the feed keeps. PostgreSQL only: SQLite has one server per data folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeChangedNotification, runtimeResetNotification } from '@switchboard/contract';
import { databaseOf, sql, testEngine } from '@switchboard/store/testing';
import { CONTROL_BUNDLE, ok, waitForQuiet } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { RpcSocket, wsUrl, type WireFrame } from './ws-client';

describe.runIf(testEngine() === 'postgres')('two servers on one PostgreSQL database', () => {
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    // One folder name, one database: both servers open the database that stands for it.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-two-servers-'));
    a = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    b = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const subscribedSocket = async (server: TestServer) => {
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
    expect((await socket.call('health.subscribe', {})).error).toBeUndefined();
    return socket;
  };
  const framesOf = (socket: RpcSocket, method: string): WireFrame[] => socket.notifications.filter((n) => n.method === method);
  /** Resolves once the server's listener has read every change committed so far. */
  const caughtUp = async (server: TestServer) => {
    const latest = await server.store.changes.latestSeq();
    await expect.poll(() => server.changes.position >= latest, { timeout: 10_000, message: 'the server to read the change feed' }).toBe(true);
  };

  it('a publish through server A reaches a console socket of server B as runtime.changed', async () => {
    expect(a.runtime.serverId).not.toBe(b.runtime.serverId);
    const socket = await subscribedSocket(b);
    const published = await ok(a, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
    const frame = await socket.waitFor(() => framesOf(socket, 'runtime.changed').find((f) => (f.params?.kinds as string[]).includes('events')), 10_000);
    expect(runtimeChangedNotification.safeParse(frame).success).toBe(true);
    expect(frame).not.toHaveProperty('id');
    // The change it announces is A's publish, readable on B at once.
    const { rows } = await sql<{ server_id: string | null }>`select server_id from changes where seq = ${frame.params!.seq as number}`.execute(databaseOf(b.store));
    expect(rows[0]?.server_id).toBe(a.runtime.serverId);
    const listed = await ok(b, 'event.list', { filter: { event_id: published.event_id } });
    expect(listed.events.map((e) => e.event_id)).toEqual([published.event_id]);
    await socket.close();
  });

  it('server B remembers verified tokens, and forgets one revoked through server A as soon as it read the change', async () => {
    const ping = (secret: string) => b.rpc('health.ping', {}, { token: secret });

    // Revoked behind the feed's back (no change row): B keeps accepting it from memory.
    const quiet = await a.store.tokens.create('revoked-without-a-change');
    // Its creation is a token change too: once B read it, what B verifies next stays in its memory.
    await caughtUp(b);
    expect((await ping(quiet.secret)).result).toBeTruthy();
    await sql`update tokens set revoked_at = ${new Date().toISOString()} where id = ${quiet.token.id}`.execute(databaseOf(a.store));
    expect((await ping(quiet.secret)).result).toBeTruthy();

    // Revoked through server A: refused by B once B's listener read the change.
    const revoked = await a.store.tokens.create('revoked-through-a');
    expect((await ping(revoked.secret)).result).toBeTruthy();
    expect(await a.store.tokens.revoke(revoked.token.id)).toBe(true);
    await caughtUp(b);
    expect((await ping(revoked.secret)).error?.data.code).toBe('UNAUTHENTICATED');
    // The memory was dropped as a whole: the quietly revoked token is read again, and refused.
    expect((await ping(quiet.secret)).error?.data.code).toBe('UNAUTHENTICATED');
  });

  it('a reset applied through server A is announced as runtime.reset on server B, and once on server A', async () => {
    const [onA, onB] = await Promise.all([subscribedSocket(a), subscribedSocket(b)]);
    await Promise.all([waitForQuiet(a), waitForQuiet(b)]);
    const preview = await ok(a, 'runtime.nuke', { dry_run: true });
    const applied = await ok(a, 'runtime.nuke', { dry_run: false, expected_plan_hash: preview.plan.plan_hash as string, reason: 'two-server reset' });
    const notice = await onB.waitFor(() => framesOf(onB, 'runtime.reset')[0], 10_000);
    expect(runtimeResetNotification.safeParse(notice).success).toBe(true);
    expect(notice.params).toMatchObject({ reset_id: applied.reset_id, status: applied.status, reason: 'two-server reset', actor_token_id: expect.stringMatching(/^tok_/) });
    // Server A announced its own reset as it finished; hearing it on the feed does not repeat it.
    await onA.waitFor(() => framesOf(onA, 'runtime.reset')[0], 10_000);
    await caughtUp(a);
    await caughtUp(b);
    expect(framesOf(onA, 'runtime.reset')).toHaveLength(1);
    expect(framesOf(onB, 'runtime.reset')).toHaveLength(1);
    expect(framesOf(onA, 'runtime.reset')[0]!.params!.reset_id).toBe(applied.reset_id);
    await Promise.all([onA.close(), onB.close()]);
  });
});
