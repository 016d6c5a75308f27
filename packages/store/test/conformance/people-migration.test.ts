/**
 * Migration 017 (issue 37): a store made before people existed keeps working for everyone who
 * held a token. Each token becomes an admin user named after it (the bootstrap token's too), so
 * every old token still grants every scope. Runs on the test engine (SQLite, or PostgreSQL with
 * SWITCHBOARD_TEST_DATABASE_URL).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { SCOPES, effectiveScopes, isRole } from '@switchboard/contract';
import { Store, hashSecret } from '@switchboard/store';
import { testDatabaseFor, testEngine } from '@switchboard/store/testing';
import { migrationProvider } from '../../src/migrations';
import { STORE_ENGINES } from '../../src/engines/index';
import { openPostgres } from '../../src/engines/postgres/open-postgres';
import { openSqlite } from '../../src/engines/sqlite/open-sqlite';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const T0 = '2026-03-01T09:00:00.000Z';

const oldTokens = [
  { id: 'tok_00000000000000b1', name: 'bootstrap', secret: 'sbk_bootstrap_secret_from_before_people', revoked_at: null },
  { id: 'tok_00000000000000c1', name: 'ci pipeline', secret: 'sbk_ci_secret_from_before_people', revoked_at: null },
  { id: 'tok_00000000000000d1', name: 'old laptop', secret: 'sbk_revoked_secret_from_before_people', revoked_at: '2026-03-02T09:00:00.000Z' },
];

it('turns every token of a store made before 017 into an admin user named after it', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-017-'));
  dirs.push(dataDir);
  const url = await testDatabaseFor(dataDir, { empty: true });
  const opened = url ? openPostgres(url, 2) : openSqlite(dataDir);
  const db = opened.db as Kysely<any>;
  const before = await new Migrator({ db, provider: migrationProvider(STORE_ENGINES[testEngine()]) }).migrateTo('016_decision_guards');
  expect(before.error).toBeUndefined();
  await db
    .insertInto('tokens')
    .values(oldTokens.map((t) => ({ id: t.id, name: t.name, prefix: t.secret.slice(0, 8), hash: hashSecret(t.secret), created_at: T0, last_used_at: null, revoked_at: t.revoked_at })))
    .execute();
  await db.destroy();

  const store = url ? await Store.open({ databaseUrl: url }) : await Store.open({ dataDir });
  try {
    const users = await store.users.list();
    expect(users.map((u) => [u.display_name, u.role, u.disabled, u.created_at])).toEqual(oldTokens.map((t) => [t.name, 'admin', false, T0]));
    const tokens = await store.tokens.list();
    for (const t of oldTokens) {
      const row = tokens.find((x) => x.id === t.id)!;
      const owner = users.find((u) => u.id === row.user_id)!;
      expect(owner.display_name).toBe(t.name);
      // Not narrowed: the token grants its admin's every scope, as v1 tokens always did.
      expect(row.scopes).toBeNull();
      expect(row.revoked_at).toBe(t.revoked_at);
    }
    // Each token has a user of its own.
    expect(new Set(tokens.map((t) => t.user_id)).size).toBe(oldTokens.length);

    const bootstrap = await store.tokens.verify(oldTokens[0]!.secret);
    expect(bootstrap?.user).toMatchObject({ display_name: 'bootstrap', role: 'admin', disabled: false });
    expect(isRole(bootstrap!.user.role)).toBe(true);
    expect(effectiveScopes('admin', bootstrap!.scopes ? (JSON.parse(bootstrap!.scopes) as string[]) : null)).toEqual([...SCOPES]);
    expect((await store.tokens.verify(oldTokens[1]!.secret))?.user.role).toBe('admin');
    // A token revoked before the migration stays revoked.
    expect(await store.tokens.verify(oldTokens[2]!.secret)).toBeUndefined();
  } finally {
    await store.close();
  }
});

it("a fresh store's first token, made without a user (the bootstrap token), gets an admin user", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-017-fresh-'));
  dirs.push(dataDir);
  const url = await testDatabaseFor(dataDir, { empty: true });
  const store = url ? await Store.open({ databaseUrl: url }) : await Store.open({ dataDir });
  try {
    const { token, secret } = await store.tokens.create('bootstrap');
    const verified = await store.tokens.verify(secret);
    expect(verified?.id).toBe(token.id);
    expect(verified?.user).toMatchObject({ display_name: 'bootstrap', role: 'admin', disabled: false });
  } finally {
    await store.close();
  }
});
