import { sql } from 'kysely';

/**
 * A conversation's status 'active', written into the statement's text rather than bound. The
 * partial index conversations_one_active holds the rows with status = 'active'; given a bound
 * status, SQLite checks its value against that predicate each time it is bound and plans the
 * statement again (docs/performance-notes.md, "Statements planned once").
 */
export const ACTIVE = sql.lit<'active'>('active');
