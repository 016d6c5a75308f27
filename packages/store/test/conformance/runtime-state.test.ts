/**
 * PostgreSQL: a key read along a held row (readAlongHeld) comes with the held row's statement, and
 * the transaction answers later reads of it from that read; the held row is still held. A guard
 * sent with the next statement holds the same row and fails that statement while the row is locked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refusedByGuard, type Store } from '@switchboard/store';
import { openTestStore, testDatabaseFor, testEngine } from '@switchboard/store/testing';

/** Each test's store with `rows` written, and a connection of its own to the same database (another process). */
function storeAndOtherConnection(rows: Record<string, string>) {
  const opened: { dir: string; store: Store; other: pg.Client } = {} as never;
  beforeEach(async () => {
    opened.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-runtime-state-'));
    opened.store = await openTestStore(opened.dir);
    for (const [key, value] of Object.entries(rows)) await opened.store.runtimeState.set(key, value);
    opened.other = new pg.Client({ connectionString: (await testDatabaseFor(opened.dir))! });
    await opened.other.connect();
  });
  afterEach(async () => {
    await opened.other.end();
    await opened.store.close();
    fs.rmSync(opened.dir, { recursive: true, force: true });
  });
  return opened;
}

describe.runIf(testEngine() === 'postgres')('runtime_state rows read along a held row on PostgreSQL', () => {
  const opened = storeAndOtherConnection({ held_key: '', along_key: 'first' });
  let store: Store;
  let other: pg.Client;
  beforeEach(() => {
    ({ store, other } = opened);
    store.runtimeState.readAlongHeld('along_key');
  });

  it('answers the key from the held read, holds the held row, and a new transaction reads the key again', async () => {
    const seen = await store.transaction(async (tx) => {
      expect(await store.runtimeState.getHoldingChanges('held_key', tx)).toBe('');
      // Committed by another connection after the held read: a read of its own would see it
      // (READ COMMITTED); the transaction answers from the read that came with the held row.
      await other.query(`update runtime_state set value = 'second' where key = 'along_key'`);
      // The held row is held: another writer cannot take it now.
      await expect(other.query(`select value from runtime_state where key = 'held_key' for update nowait`)).rejects.toMatchObject({ code: '55P03' });
      return store.runtimeState.getOnceIn('along_key', tx);
    });
    expect(seen).toBe('first');
    expect(await store.transaction((tx) => store.runtimeState.getOnceIn('along_key', tx))).toBe('second');
  });

  it('keeps a read the transaction made before the held one', async () => {
    const seen = await store.transaction(async (tx) => {
      expect(await store.runtimeState.getOnceIn('along_key', tx)).toBe('first');
      await other.query(`update runtime_state set value = 'second' where key = 'along_key'`);
      await store.runtimeState.getHoldingChanges('held_key', tx);
      return store.runtimeState.getOnceIn('along_key', tx);
    });
    expect(seen).toBe('first');
  });

  it('answers a key with no row as absent', async () => {
    store.runtimeState.readAlongHeld('never_written');
    const seen = await store.transaction(async (tx) => {
      await store.runtimeState.getHoldingChanges('held_key', tx);
      await other.query(`insert into runtime_state (key, value) values ('never_written', 'late')`);
      return store.runtimeState.getOnceIn('never_written', tx);
    });
    expect(seen).toBeUndefined();
  });
});

describe.runIf(testEngine() === 'postgres')('a guard sent with the next statement (refuseWithNextWhileLocked) on PostgreSQL', () => {
  const opened = storeAndOtherConnection({ lock_key: '', ingress_key: 'open' });
  let store: Store;
  let other: pg.Client;
  beforeEach(() => {
    ({ store, other } = opened);
  });
  const now = new Date().toISOString();
  const lockUntil = (ms: number) => JSON.stringify({ reset_id: 'reset_x', started_at: now, expires_at: new Date(Date.now() + ms).toISOString() });
  /** A transaction that sends the guard, then writes a probe row: what it answers, and whether the probe landed. */
  const guardedWrite = async () => {
    const outcome = await store
      .transaction(async (tx) => {
        await store.runtimeState.refuseWithNextWhileLocked(tx, 'lock_key', new Date().toISOString(), { key: 'ingress_key', value: 'paused' });
        await store.runtimeState.set('probe', 'written', tx);
        return 'committed';
      })
      .catch((error: unknown) => (refusedByGuard(error) ? 'refused' : error));
    return { outcome, probe: await store.runtimeState.get('probe') };
  };

  it('lets the transaction write while the lock is free, an expired lock too, and holds the lock row until it ends', async () => {
    expect(await guardedWrite()).toEqual({ outcome: 'committed', probe: 'written' });
    await store.runtimeState.set('lock_key', lockUntil(-1_000));
    await store.runtimeState.delete('probe');
    expect(await guardedWrite()).toEqual({ outcome: 'committed', probe: 'written' });
    await store.transaction(async (tx) => {
      await store.runtimeState.refuseWithNextWhileLocked(tx, 'lock_key', new Date().toISOString(), { key: 'ingress_key', value: 'paused' });
      await store.runtimeState.set('probe', 'again', tx);
      // The lock row is held as getHoldingChanges holds it: a reset cannot take it now.
      await expect(other.query(`select value from runtime_state where key = 'lock_key' for update nowait`)).rejects.toMatchObject({ code: '55P03' });
    });
  });

  it('fails the statement after it, and so the transaction, while another connection holds the lock or the refused value is set', async () => {
    await other.query(`update runtime_state set value = $1 where key = 'lock_key'`, [lockUntil(60_000)]);
    expect(await guardedWrite()).toEqual({ outcome: 'refused', probe: undefined });
    await other.query(`update runtime_state set value = '' where key = 'lock_key'`);
    await other.query(`update runtime_state set value = 'paused' where key = 'ingress_key'`);
    expect(await guardedWrite()).toEqual({ outcome: 'refused', probe: undefined });
    await other.query(`update runtime_state set value = 'open' where key = 'ingress_key'`);
    expect(await guardedWrite()).toEqual({ outcome: 'committed', probe: 'written' });
  });
});
