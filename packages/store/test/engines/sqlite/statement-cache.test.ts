import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { expect, it } from 'vitest';
import { withStatementCache } from '../../../src/engines/sqlite/statement-cache';

it('hands back the prepared statement for SQL it has seen, a fresh one while it is being iterated, and evicts the least recently used', () => {
  const raw = new BetterSqlite3(':memory:');
  raw.exec('create table t (n integer); insert into t values (1), (2), (3)');
  const db = withStatementCache(raw, 2);
  const a = db.prepare('select n from t order by n');
  expect(db.prepare('select n from t order by n')).toBe(a);
  expect(a.all([])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);

  const iterating = a.iterate([]);
  iterating.next();
  const whileBusy = db.prepare('select n from t order by n');
  expect(whileBusy).not.toBe(a);
  expect(whileBusy.all([])).toHaveLength(3);
  iterating.return?.();

  db.prepare('select 1');
  db.prepare('select 2'); // capacity 2: the oldest ("select n …") is evicted
  expect(db.prepare('select n from t order by n')).not.toBe(a);
  db.close();
});

it('gives rows as the objects better-sqlite3 makes: a property per column in order, a repeated name its last value', () => {
  const raw = new BetterSqlite3(':memory:');
  raw.exec("create table t (n integer, s text, x real, b blob); insert into t values (1, 'a', 1.5, x'00ff'), (null, null, null, null)");
  const db = withStatementCache(raw);
  for (const sql of ['select * from t order by n', 'select n, s as n, x from t order by n', 'select count(*) as c, max(s) from t', 'select n from t where n = 99']) {
    const own = raw.prepare(sql).all();
    const rows = db.prepare(sql).all([]);
    expect(rows).toEqual(own);
    expect(rows.map((r) => Object.keys(r as object))).toEqual(own.map((r) => Object.keys(r as object)));
    expect([...db.prepare(sql).iterate([])]).toEqual(own);
  }
  // Writes still answer with their changes and row id.
  expect(db.prepare('insert into t (n) values (?)').run([5])).toMatchObject({ changes: 1, lastInsertRowid: 3 });
  db.close();
});

it('reads a kept select * with the columns a schema change gave it, on this connection or another', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'statement-cache-')), 'db.sqlite');
  const raw = new BetterSqlite3(file);
  raw.exec("create table t (a integer, b text); insert into t values (1, 'x')");
  const db = withStatementCache(raw);
  expect(db.prepare('select * from t').all([])).toEqual([{ a: 1, b: 'x' }]);
  // Through this connection's cache, as migrations run: a rename keeps the column count.
  db.prepare('alter table t rename column b to c').run([]);
  expect(db.prepare('select * from t').all([])).toEqual([{ a: 1, c: 'x' }]);
  // On another connection: a column more.
  const other = new BetterSqlite3(file);
  other.exec("alter table t add column d text default 'new'");
  other.close();
  expect(db.prepare('select * from t').all([])).toEqual([{ a: 1, c: 'x', d: 'new' }]);
  db.close();
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});

it('runs a statement whose LIMIT and OFFSET are bound with the values written in, one text per set of values, and the same rows', () => {
  const raw = new BetterSqlite3(':memory:');
  raw.exec("create table t (n integer, s text); insert into t values (1, 'x'), (2, 'x'), (3, 'x'), (4, 'x'), (5, 'x')");
  const prepared: string[] = [];
  const prepare = raw.prepare.bind(raw);
  raw.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof raw.prepare;
  const db = withStatementCache(raw);
  const sql = 'select n from t where s = ? and n > ? order by n limit ? offset ?';
  const statement = db.prepare(sql);
  expect(statement.all(['x', 1, 2, 1])).toEqual(prepare(sql).all('x', 1, 2, 1));
  expect(statement.all(['x', 1, 2, 1])).toEqual([{ n: 3 }, { n: 4 }]);
  expect(statement.all(['x', 0, 3, 0])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  expect(statement.all(['x', 0, 2, 1])).toEqual([{ n: 2 }, { n: 3 }]);
  // The bound text once (for its columns), then one text per set of values, each prepared once.
  expect(prepared).toEqual([sql, ...['limit 2 offset 1', 'limit 3 offset 0'].map((l) => `select n from t where s = ? and n > ? order by n ${l}`)]);

  // A text being iterated is busy: the next call with its values gets a fresh one.
  const iterating = statement.iterate(['x', 0, 3, 0]);
  expect(iterating.next().value).toEqual({ n: 1 });
  expect(statement.all(['x', 0, 3, 0])).toHaveLength(3);
  iterating.return?.();

  // A value that is not an integer is bound, as written: SQLite answers as it would without the cache.
  expect(() => statement.all(['x', 0, 'many', 0])).toThrow(/datatype mismatch/);
  expect(() => prepare(sql).all('x', 0, 'many', 0)).toThrow(/datatype mismatch/);
  // Writes with a bound limit (SQLite's DELETE ... LIMIT is not built in here): a subquery's limit.
  expect(db.prepare('delete from t where n in (select n from t order by n limit ?)').run([2])).toMatchObject({ changes: 2 });
  expect(db.prepare('select count(*) as c from t').all([])).toEqual([{ c: 3 }]);
  db.close();
});
