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
