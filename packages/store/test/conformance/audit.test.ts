/**
 * The audit chain on the test engine (SQLite, or PostgreSQL with SWITCHBOARD_TEST_DATABASE_URL):
 * appends alone, inside a caller's transaction and inside a group commit; a rolled-back effect
 * leaves no record; an edited row is named by verify; appends from two stores form one chain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../src/store';
import type { AuditEntry } from '../../src/repositories/audit';
import { databaseOf, openTestStore, sql, testEngine } from '../../src/testing';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-audit-'));
  store = await openTestStore(dir);
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const entry = (method: string, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  channel: 'api',
  serverId: 'node-a',
  method,
  outcome: 'ok',
  userId: 'usr_a',
  tokenId: 'tok_a',
  ...extra,
});

it('appends alone, in a transaction and in a group commit form one verified chain; a failed member leaves no record', async () => {
  await store.audit.append(entry('one'));
  await store.transaction(async (tx) => {
    await store.runtimeState.insert('audit-effect', 'v', tx);
    await store.audit.append(entry('two', { targetIds: ['evt_1', 'run_1'] }), tx);
  });
  const group = await Promise.allSettled([
    store.transactionInGroup(async (tx) => store.audit.append(entry('three'), tx)),
    store.transactionInGroup(async (tx) => {
      await store.audit.append(entry('refused-member'), tx);
      throw new Error('member failed after its record');
    }),
    store.transactionInGroup(async (tx) => store.audit.append(entry('four'), tx)),
  ]);
  expect(group.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  await expect(
    store.transaction(async (tx) => {
      await store.audit.append(entry('rolled-back'), tx);
      throw new Error('effect failed');
    }),
  ).rejects.toThrow('effect failed');

  const all = await store.audit.list({}, 100);
  expect(all.map((r) => r.method)).toEqual(['four', 'three', 'two', 'one']);
  expect(all.map((r) => r.seq)).toEqual([4, 3, 2, 1]);
  expect(all[2]!.target_ids).toEqual(['evt_1', 'run_1']);
  expect(all[3]!.prev_hash).toBe('0'.repeat(64));
  expect(all[2]!.prev_hash).toBe(all[3]!.hash);
  expect(await store.audit.verify()).toEqual({ ok: true, verified: 4 });
});

it('verify names the first row whose content was edited directly', async () => {
  for (let i = 1; i <= 6; i++) await store.audit.append(entry(`call-${i}`));
  expect(await store.audit.verify()).toEqual({ ok: true, verified: 6 });
  await sql`update audit set outcome = 'FORBIDDEN' where seq = 4`.execute(databaseOf(store));
  const verdict = await store.audit.verify();
  expect(verdict).toMatchObject({ ok: false, verified: 3, broken: { seq: 4, reason: 'its content does not match its hash' } });
});

it('verify names a deleted row and a truncated tail', async () => {
  for (let i = 1; i <= 5; i++) await store.audit.append(entry(`call-${i}`));
  await sql`delete from audit where seq = 5`.execute(databaseOf(store));
  expect(await store.audit.verify()).toMatchObject({ ok: false, verified: 4, broken: { seq: 5 } });
  await sql`delete from audit where seq = 2`.execute(databaseOf(store));
  expect(await store.audit.verify()).toMatchObject({ ok: false, verified: 1, broken: { seq: 2, reason: 'record 2 is missing (the next is 3)' } });
});

it('lists by actor, method, target, outcome and time, newest first, in keyset pages', async () => {
  await store.audit.append(entry('event.publish', { targetIds: ['evt_1'] }));
  await store.audit.append(entry('runtime.pause', { userId: 'usr_b', tokenId: 'tok_b', outcome: 'FORBIDDEN' }));
  await store.audit.append(entry('event.publish', { targetIds: ['evt_2', 'shared'] }));
  await store.audit.append(entry('event.redrive', { targetIds: ['shared'], outcome: 'NOT_FOUND' }));
  await store.audit.append(entry('event.publish', { userId: 'usr_b', tokenId: 'tok_b' }));
  const methods = async (filter: Parameters<Store['audit']['list']>[0], limit = 100) => (await store.audit.list(filter, limit)).map((r) => r.seq);
  expect(await methods({ actor: 'usr_b' })).toEqual([5, 2]);
  expect(await methods({ actor: 'tok_a' })).toEqual([4, 3, 1]);
  expect(await methods({ method: 'event.publish' })).toEqual([5, 3, 1]);
  expect(await methods({ targetId: 'shared' })).toEqual([4, 3]);
  expect(await methods({ outcome: 'ok' })).toEqual([5, 3, 1]);
  expect(await methods({ outcome: 'error' })).toEqual([4, 2]);
  expect(await methods({ outcome: 'FORBIDDEN' })).toEqual([2]);
  expect(await methods({}, 2)).toEqual([5, 4]);
  expect(await methods({ beforeSeq: 4 }, 2)).toEqual([3, 2]);
  expect(await methods({ method: 'event.publish', beforeSeq: 3 })).toEqual([1]);
  const third = (await store.audit.list({}, 100)).find((r) => r.seq === 3)!;
  expect(await methods({ since: third.at, until: '9999-01-01T00:00:00.000Z' })).toEqual(expect.arrayContaining([5, 4, 3]));
  expect(await methods({ until: '2000-01-01T00:00:00.000Z' })).toEqual([]);
});

// Two stores share a database only on PostgreSQL (SQLite's folder has one server process).
it.skipIf(testEngine() === 'sqlite')('concurrent appends from two stores on one database form one linear chain', async () => {
  const other = await openTestStore(dir);
  try {
    const appends = Array.from({ length: 40 }, (_, i) => {
      const s = i % 2 === 0 ? store : other;
      return i % 3 === 0 ? s.audit.append(entry(`alone-${i}`)) : s.transactionInGroup((tx) => s.audit.append(entry(`grouped-${i}`), tx));
    });
    await Promise.all(appends);
    expect(await store.audit.verify()).toEqual({ ok: true, verified: 40 });
  } finally {
    await other.close();
  }
});
