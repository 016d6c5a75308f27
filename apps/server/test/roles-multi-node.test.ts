/**
 * Two nodes on one PostgreSQL database: a role change, a disable and a revoke made through node A
 * apply to the next request node B serves once B read the change, although B remembered the
 * token as verified. PostgreSQL only: SQLite has one server per data folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngine } from '@switchboard/store/testing';
import { CONTROL_BUNDLE, ok, waitFor } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';

describe.runIf(testEngine() === 'postgres')('roles across two nodes', () => {
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-roles-two-nodes-'));
    a = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
    b = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Resolves once node B's listener has read every change committed so far. */
  const caughtUp = async () => {
    const latest = await b.store.changes.latestSeq();
    await waitFor(() => b.changes.position >= latest, 10_000, 'node B to read the change feed');
  };
  const publishOnB = (secret: string) => b.rpc('event.publish', { event_name: 'tick', payload: { n: 1 } }, { token: secret });

  it('a role change through node A applies to the next request on node B', async () => {
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

  it('a token revoked through node A is refused by node B on its next request', async () => {
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
