import BetterSqlite3 from 'better-sqlite3';

/** Reads `file` through a read-only connection of its own, so the store's connection is left as it is. */
export function readOnly<T>(file: string, read: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** What SQLite would do for `text`, one line per step of EXPLAIN QUERY PLAN, every `?` bound to a string. */
export function queryPlanOf(db: BetterSqlite3.Database, text: string): string {
  const parameters = text.split('?').slice(1).map(() => 'x');
  return (db.prepare(`explain query plan ${text}`).all(...parameters) as { detail: string }[]).map((r) => r.detail).join('\n');
}

/** Entries in a b-tree's leaves (a table's rows, an index's entries), from SQLite's own page statistics. */
export function entriesOf(db: BetterSqlite3.Database, btree: string): number {
  return Number(db.prepare("select coalesce(sum(ncell), 0) from dbstat where name = ? and pagetype = 'leaf'").pluck().get(btree));
}
