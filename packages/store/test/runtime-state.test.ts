/**
 * PostgreSQL: a key read along a held row (readAlongHeld) comes with the held row's statement, and
 * the transaction answers later reads of it from that read; the held row is still held.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@switchboard/store';
import { openTestStore, testDatabaseFor, testEngine } from '@switchboard/store/testing';

describe.runIf(testEngine() === 'postgres')('runtime_state rows read along a held row on PostgreSQL', () => {
  let dir: string;
  let store: Store;
  let other: pg.Client;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-runtime-state-'));
    store = await openTestStore(dir);
    await store.runtimeState.set('held_key', '');
    await store.runtimeState.set('along_key', 'first');
    store.runtimeState.readAlongHeld('along_key');
    other = new pg.Client({ connectionString: (await testDatabaseFor(dir))! });
    await other.connect();
  });
  afterEach(async () => {
    await other.end();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
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
