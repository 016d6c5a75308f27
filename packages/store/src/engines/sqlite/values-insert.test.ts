/**
 * valuesInsert writes the rows Kysely's builder writes: the same columns, NULL where a row leaves
 * one out, the values as given, RETURNING in insertion order; and it declines (undefined) what it
 * cannot bind as is, so the caller's builder takes it.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { expect, it } from 'vitest';
import { valuesInsert } from './values-insert';
import { insertRows } from '../../repositories/insert-rows';
import { sqliteEngine } from './sqlite-engine';

interface Db {
  t: { id: number; a: string | null; b: number | null; c: string | null; blob: Buffer | null; big: number | null };
}

function database(): Kysely<Db> {
  const raw = new BetterSqlite3(':memory:');
  raw.exec(`create table t (id integer primary key, a text, b integer, c text default 'from default', blob blob, big integer)`);
  return new Kysely<Db>({ dialect: new SqliteDialect({ database: raw }) });
}

const rowsOf = (db: Kysely<Db>) => db.selectFrom('t').selectAll().orderBy('id').execute();

it('inserts the rows, and returns the columns asked for, as the builder does', async () => {
  const rows = [
    { id: 1, a: 'x', b: 2 },
    { id: 2, b: undefined, c: 'given', blob: Buffer.from([1, 2, 3]) },
    { id: 3, a: null, big: 2n ** 40n },
    { id: 4, a: 'quote " and \'', b: 0 },
  ];
  const viaBuilder = database();
  const built = await viaBuilder.insertInto('t').values(rows as never).returning(['id', 'a']).execute();
  const direct = database();
  const insert = valuesInsert<{ id: number; a: string | null }>('t', rows, ['id', 'a']);
  expect(insert).toBeDefined();
  const returned = (await direct.executeQuery(insert!)).rows;
  expect(returned).toEqual(built);
  expect(returned.map((r) => r.id)).toEqual([1, 2, 3, 4]);
  expect(await rowsOf(direct)).toEqual(await rowsOf(viaBuilder));
  // A column some row gives a value is NULL in a row that leaves it out, not its default.
  expect((await rowsOf(direct)).map((r) => r.c)).toEqual([null, 'given', null, null]);
});

it('declines what it cannot bind as is, and what one statement cannot hold', () => {
  expect(valuesInsert('t', [])).toBeUndefined();
  expect(valuesInsert('t', [{ id: 1, a: sql`'x' || 'y'` }])).toBeUndefined();
  expect(valuesInsert('t', [{ id: 1, b: true }])).toBeUndefined();
  expect(valuesInsert('t', [{ id: 1, a: new Date(0) }])).toBeUndefined();
  expect(valuesInsert('t', [{ a: undefined }])).toBeUndefined();
  const many = Array.from({ length: 5462 }, (_, id) => ({ id, a: 'x', b: 1, c: 'y', blob: null, big: 1 }));
  expect(valuesInsert('t', many.slice(0, 5461))).toBeDefined();
  expect(valuesInsert('t', many)).toBeUndefined();
});

it('insertRows falls back to the builder for rows the engine declines, in chunks, returning what was asked', async () => {
  const db = database();
  const rows = Array.from({ length: 400 }, (_, id) => ({ id, a: sql<string>`${'x'} || ${String(id)}`, b: id }));
  const returned = await insertRows<{ id: number }>(sqliteEngine, db as never, 't' as never, rows, { returning: ['id'] });
  expect(returned.map((r) => r.id)).toEqual(rows.map((r) => r.id));
  expect((await rowsOf(db)).map((r) => r.a)).toEqual(rows.map((r) => `x${r.id}`));
  expect(await insertRows(sqliteEngine, db as never, 't' as never, [])).toEqual([]);
});
