/**
 * Two servers on one PostgreSQL database: a role change, a disable and a revoke made through server A
 * apply to the next request server B serves once B read the change, although B remembered the
 * token as verified. First with both servers in this process (so the test knows when B read the
 * change), then with node B a server process of its own. PostgreSQL only: SQLite has one server
 * per data folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseFor, testEngine } from '@switchboard/store/testing';
import { CONTROL_BUNDLE, ok } from './control-helpers';
import { TEST_TOKEN, startTestServer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';
import { startServerProcess, type ServerProcess } from './server-process';

describe.runIf(testEngine() === 'postgres')('roles across two servers', () => {
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-roles-two-servers-'));
    a = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    b = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Resolves once server B's listener has read every change committed so far. */
  const caughtUp = async () => {
    const latest = await b.store.changes.latestSeq();
    await expect.poll(() => b.changes.position >= latest, { timeout: 10_000, message: 'server B to read the change feed' }).toBe(true);
  };
  const publishOnB = (secret: string) => b.rpc('event.publish', { event_name: 'tick', payload: { n: 1 } }, { token: secret });

  it('a role change through server A applies to the next request on server B', async () => {
    const { user } = await ok(a, 'user.create', { display_name: 'Noor (operator)', role: 'operator' });
    const { secret } = await ok(a, 'token.create', { user_id: user.id, name: 'noor laptop' });
    await caughtUp();
    // B verifies the token and remembers it.
    expect((await publishOnB(secret!)).error).toBeUndefined();
    expect((await publishOnB(secret!)).error).toBeUndefined();

    await ok(a, 'user.update', { user_id: user.id, role: 'viewer' });
    await caughtUp();
    const refused = await publishOnB(secret!);
    expectRpcError(refused, 'FORBIDDEN');
    expect(refused.error.data.details).toMatchObject({ required_scope: 'events:publish', role: 'viewer' });
    expect((await b.rpc('health.ping', {}, { token: secret! })).error).toBeUndefined();

    await ok(a, 'user.update', { user_id: user.id, role: 'operator' });
    await caughtUp();
    expect((await publishOnB(secret!)).error).toBeUndefined();

    await ok(a, 'user.update', { user_id: user.id, disabled: true });
    await caughtUp();
    expect((await b.rpc('health.ping', {}, { token: secret! })).error?.data.code).toBe('UNAUTHENTICATED');
  });

  it('a token revoked through server A is refused by server B on its next request', async () => {
    const { user } = await ok(a, 'user.create', { display_name: 'Ravi (reviewer)', role: 'reviewer' });
    const { token, secret } = await ok(a, 'token.create', { user_id: user.id, name: 'ravi phone' });
    await caughtUp();
    expect((await b.rpc('health.ping', {}, { token: secret! })).error).toBeUndefined();
    expect((await b.rpc('health.ping', {}, { token: secret! })).error).toBeUndefined();

    const revoked = await ok(a, 'token.revoke', { token_id: token.id });
    expect(revoked.already_revoked).toBe(false);
    await caughtUp();
    expect((await b.rpc('health.ping', {}, { token: secret! })).error?.data.code).toBe('UNAUTHENTICATED');
  });
});

describe.runIf(testEngine() === 'postgres')('roles across two server processes', () => {
  let dataDir: string;
  let a: TestServer;
  let b: ServerProcess;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-roles-two-processes-'));
    a = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    b = await startServerProcess({ SWITCHBOARD_DATABASE_URL: (await testDatabaseFor(dataDir))!, SWITCHBOARD_TOKEN: TEST_TOKEN, SWITCHBOARD_BUNDLE: CONTROL_BUNDLE }, 60_000);
  }, 90_000);
  afterAll(async () => {
    if (b && b.child.exitCode === null) {
      b.child.kill('SIGTERM');
      await b.exited;
    }
    await a?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** One call to server B's API with `secret`: the error code, or 'ok'. */
  async function onB(secret: string, method: string, params: unknown): Promise<string> {
    const res = await fetch(b.url + '/v1/rpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { error?: { data: { code: string } } };
    return body.error?.data.code ?? 'ok';
  }
  const publish = (secret: string) => onB(secret, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
  /** B learns of A's change from the feed, without a restart; this waits for its answer to turn. */
  const becomes = (what: () => Promise<string>, code: string) => expect.poll(async () => (await what()) === code, { timeout: 10_000, message: `server B to answer ${code}` }).toBe(true);

  it('a role change and a revoke through server A reach server B, which had the token verified', async () => {
    const { user } = await ok(a, 'user.create', { display_name: 'Oskar (operator)', role: 'operator' });
    const { token, secret } = await ok(a, 'token.create', { user_id: user.id, name: 'oskar laptop' });
    await becomes(() => publish(secret!), 'ok');
    expect(await publish(secret!)).toBe('ok');

    await ok(a, 'user.update', { user_id: user.id, role: 'reviewer' });
    await becomes(() => publish(secret!), 'FORBIDDEN');
    expect(await onB(secret!, 'health.ping', {})).toBe('ok');

    await ok(a, 'token.revoke', { token_id: token.id });
    await becomes(() => onB(secret!, 'health.ping', {}), 'UNAUTHENTICATED');
    // And it stays refused.
    expect(await onB(secret!, 'health.ping', {})).toBe('UNAUTHENTICATED');
  });
});
