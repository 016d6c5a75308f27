import { sql, type RawBuilder } from 'kysely';

/**
 * A text column for a comparison that must not choose an index: the statement names its rows by
 * id, and SQLite, planning without statistics, can otherwise walk an index that begins with this
 * column instead (a status that a million delivered deliveries, or every running run under a
 * backlog, share; docs/performance-notes.md). Concatenation hides the column from both engines'
 * index matching and changes no value; SQLite's own `+column` is an error on PostgreSQL text.
 */
export function unindexedText(column: string): RawBuilder<string> {
  return sql<string>`(${sql.ref(column)} || '')`;
}
