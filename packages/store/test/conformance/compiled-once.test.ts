/**
 * compiledOnce: a statement built once with placeholders answers each call with that call's own
 * arguments, on each engine's text (one per database handle), and refuses a builder that leaves an
 * argument out of the parameters.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../src/store';
import { compiledOnce } from '../../src/compiled-once';
import { databaseOf, openTestStore, sql } from '../../src/testing';

const dirs: string[] = [];
const stores: Store[] = [];
async function open(): Promise<Store> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-compiled-once-'));
  dirs.push(dir);
  const store = await openTestStore(dir);
  stores.push(store);
  return store;
}
let store: Store;
beforeEach(async () => {
  store = await open();
  for (const [key, value] of [['co-a', '1'], ['co-b', '2'], ['co-c', '3']]) await store.runtimeState.set(key!, value!);
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it('answers each call with its own arguments, from a builder or a sql template', async () => {
  let builds = 0;
  const valuesBetween = compiledOnce((db, from: string, to: string) => {
    builds += 1;
    return db.selectFrom('runtime_state').select('value').where('key', '>=', from).where('key', '<=', to).orderBy('key');
  });
  const db = databaseOf(store);
  expect((await valuesBetween(db, 'co-a', 'co-b')).rows).toEqual([{ value: '1' }, { value: '2' }]);
  expect((await valuesBetween(db, 'co-b', 'co-c')).rows).toEqual([{ value: '2' }, { value: '3' }]);
  expect((await valuesBetween(db, 'co-c', 'co-a')).rows).toEqual([]);
  expect(builds).toBe(1);

  const valueWithSuffix = compiledOnce((_db, key: string, suffix: string) => sql<{ v: string }>`select value || ${suffix} as v from runtime_state where key = ${key}`);
  expect((await valueWithSuffix(db, 'co-a', '!')).rows).toEqual([{ v: '1!' }]);
  expect((await valueWithSuffix(db, 'co-c', '?')).rows).toEqual([{ v: '3?' }]);
});

it('runs inside the caller’s transaction', async () => {
  const setValue = compiledOnce((db, key: string, value: string) => db.updateTable('runtime_state').set({ value }).where('key', '=', key));
  await expect(
    store.transaction(async (tx) => {
      await setValue(tx as never, 'co-a', 'changed');
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
  expect(await store.runtimeState.get('co-a')).toBe('1');
  await store.transaction((tx) => setValue(tx as never, 'co-a', 'changed'));
  expect(await store.runtimeState.get('co-a')).toBe('changed');
});

it('compiles once per database handle, so each store gets its own text', async () => {
  const other = await open();
  await other.runtimeState.set('co-a', 'other');
  let builds = 0;
  const read = compiledOnce((db, key: string) => {
    builds += 1;
    return db.selectFrom('runtime_state').select('value').where('key', '=', key);
  });
  expect((await read(databaseOf(store), 'co-a')).rows).toEqual([{ value: '1' }]);
  expect((await read(databaseOf(other), 'co-a')).rows).toEqual([{ value: 'other' }]);
  expect((await read(databaseOf(store), 'co-b')).rows).toEqual([{ value: '2' }]);
  expect(builds).toBe(2);
});

it('refuses a builder that does not send an argument as a parameter', async () => {
  const ignoresKey = compiledOnce((db, _key: string) => db.selectFrom('runtime_state').select('value').where('key', '=', 'co-a'));
  await expect(ignoresKey(databaseOf(store), 'co-b')).rejects.toThrow(/1 of 1 arguments are no parameter/);
});
