/**
 * Rows one multi-row statement writes at most. SQLite binds at most 32,766 parameters and
 * PostgreSQL 65,535; 500 rows of the widest table (deliveries, 18 columns) stay well inside both.
 */
export const MAX_ROWS_PER_STATEMENT = 500;
