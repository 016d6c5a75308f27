/**
 * Bearer tokens are verified from memory after the first request, yet a revoke takes effect on the
 * very next request: made in this process, or committed by another process (the token CLI). The
 * memory learns of other processes' commits once per turn of the event loop (its documented bound).
 */
import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const ping = (token: string) => server.rpc('health.ping', {}, { token });

it('a token revoked in this process is refused on the next request', async () => {
  const { token, secret } = await server.store.tokens.create('memory-test');
  expect((await ping(secret)).result).toBeTruthy();
  expect((await ping(secret)).result).toBeTruthy();
  expect(await server.store.tokens.revoke(token.id)).toBe(true);
  expect((await ping(secret)).error?.data.code).toBe('UNAUTHENTICATED');
});

it('a token revoked by another process is refused on the next request', async () => {
  const { token, secret } = await server.store.tokens.create('memory-test-2');
  expect((await ping(secret)).result).toBeTruthy();
  const other = new BetterSqlite3(path.join(server.dataDir, 'switchboard.db'));
  other.prepare('update tokens set revoked_at = ? where id = ?').run(new Date().toISOString(), token.id);
  other.close();
  expect((await ping(secret)).error?.data.code).toBe('UNAUTHENTICATED');
});

it('a token created by another process is accepted on its first request', async () => {
  expect((await ping('sbk_not_yet_created_token_000001')).error?.data.code).toBe('UNAUTHENTICATED');
  const other = new BetterSqlite3(path.join(server.dataDir, 'switchboard.db'));
  const { createHash } = await import('node:crypto');
  other.prepare("insert into users (id, display_name, role, disabled, created_at) values ('usr_fromcli0000001', 'from-cli', 'viewer', 0, ?)").run(new Date().toISOString());
  other
    .prepare("insert into tokens (id, name, prefix, hash, created_at, last_used_at, revoked_at, user_id) values (?, ?, ?, ?, ?, null, null, 'usr_fromcli0000001')")
    .run('tok_fromcli0000001', 'from-cli', 'sbk_not_', createHash('sha256').update('sbk_not_yet_created_token_000001').digest('hex'), new Date().toISOString());
  other.close();
  expect((await ping('sbk_not_yet_created_token_000001')).result).toBeTruthy();
});

it("learns of another process's commit in the next turn of the event loop, not later", async () => {
  const { token, secret } = await server.store.tokens.create('memory-test-turn');
  expect(await server.store.tokens.verify(secret)).toBeTruthy();
  const other = new BetterSqlite3(path.join(server.dataDir, 'switchboard.db'));
  other.prepare('update tokens set revoked_at = ? where id = ?').run(new Date().toISOString(), token.id);
  other.close();
  // Still the turn that read the change counter: the memory answers (the bound, one turn).
  expect((await server.store.tokens.verify(secret))?.id).toBe(token.id);
  await new Promise((turnEnded) => setImmediate(turnEnded));
  expect(await server.store.tokens.verify(secret)).toBeUndefined();
});
