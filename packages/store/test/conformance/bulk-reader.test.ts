/**
 * The bulk reader an export walks through: it reads what the store has committed (also what is
 * committed while it is open), and on an engine where it is a connection of its own it refuses
 * writes, which could otherwise wait on the store's own lock on the same thread.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openTestStore, testEngine } from '@switchboard/store/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '@switchboard/store';

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-bulk-reader-'));
  store = await openTestStore(dir);
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('reads what the store committed before and while it is open, and closes without closing the store', async () => {
  await store.runtimeState.set('bulk-reader-a', 'first');
  const reader = store.openBulkReader();
  expect(await reader.store.runtimeState.get('bulk-reader-a')).toBe('first');
  await store.runtimeState.set('bulk-reader-b', 'second');
  expect(await reader.store.runtimeState.get('bulk-reader-b')).toBe('second');
  await reader.close();
  // The store goes on as before.
  await store.runtimeState.set('bulk-reader-c', 'third');
  expect(await store.runtimeState.get('bulk-reader-c')).toBe('third');
});

// On PostgreSQL the bulk reader is the store itself, whose writes are the store's.
it.skipIf(testEngine() === 'postgres')('refuses writes where it reads through a connection of its own, and the store is unharmed', async () => {
  const reader = store.openBulkReader();
  try {
    expect(reader.store).not.toBe(store);
    await expect(reader.store.runtimeState.set('bulk-reader-write', 'x')).rejects.toThrow(/readonly|read-only/i);
    expect(await store.runtimeState.get('bulk-reader-write')).toBeUndefined();
    await store.runtimeState.set('bulk-reader-write', 'y');
    expect(await reader.store.runtimeState.get('bulk-reader-write')).toBe('y');
  } finally {
    await reader.close();
  }
});
