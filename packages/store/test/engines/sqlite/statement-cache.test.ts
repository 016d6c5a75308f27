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
