/**
 * Each engine reads its own driver's error codes (the server only asks the store): the codes
 * below are what better-sqlite3 and node-postgres put on the errors they raise.
 */
import { expect, it } from 'vitest';
import { STORE_ENGINES } from '../../src/engines/index';

const failure = (code: string | undefined, message = 'failed') => Object.assign(new Error(message), code ? { code } : {});

it('SQLite: a held write lock (SQLITE_BUSY and its extended codes) is busy, a taken unique key duplicate; nothing else passes', () => {
  const { sqlite } = STORE_ENGINES;
  expect(sqlite.classifyError(failure('SQLITE_BUSY'))).toBe('busy');
  expect(sqlite.classifyError(failure('SQLITE_BUSY_SNAPSHOT'))).toBe('busy');
  expect(sqlite.classifyError(failure('SQLITE_CONSTRAINT_UNIQUE'))).toBe('duplicate');
  expect(sqlite.classifyError(failure('SQLITE_CONSTRAINT_PRIMARYKEY'))).toBe('duplicate');
  expect(sqlite.classifyError(failure('SQLITE_CONSTRAINT_NOTNULL'))).toBe('other');
  expect(sqlite.classifyError(failure('40001'))).toBe('other');
  expect(sqlite.classifyError('not an error')).toBe('other');
  expect(sqlite.classifyError(null)).toBe('other');
});

it('PostgreSQL: conflicts are busy; a lost, refused or full connection is unavailable; a unique violation duplicate', () => {
  const { postgres } = STORE_ENGINES;
  for (const code of ['40001', '40P01']) expect(postgres.classifyError(failure(code))).toBe('busy');
  for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300', '53100', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']) {
    expect(postgres.classifyError(failure(code)), code).toBe('unavailable');
  }
  expect(postgres.classifyError(failure(undefined, 'Connection terminated unexpectedly'))).toBe('unavailable');
  expect(postgres.classifyError(failure(undefined, 'timeout exceeded when trying to connect'))).toBe('unavailable');
  expect(postgres.classifyError(failure('23505'))).toBe('duplicate');
  expect(postgres.classifyError(failure('23503'))).toBe('other');
  expect(postgres.classifyError(failure('SQLITE_BUSY'))).toBe('other');
  expect(postgres.classifyError(undefined)).toBe('other');
});
