/**
 * A server whose PostgreSQL cannot be reached at start says so in one line (the URL without its
 * password, and the reason) and exits 2, as for a bad configuration: no stack trace. Refused
 * connections need no PostgreSQL; a wrong password and a missing database are tried on the
 * PostgreSQL pass.
 */
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL_ENV, testEngine } from '@switchboard/store/testing';
import { CONTROL_BUNDLE } from './control-helpers';
import { freePort, runServerToExit } from './server-process';

const PASSWORD = 'not-the-password-7f3a';

const startWith = (databaseUrl: string) => runServerToExit({ SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_DATABASE_URL: databaseUrl });

function expectOneLine(started: { status: number | null; stderr: string }, user: string, secret: string, reason: RegExp): void {
  expect(started.status).toBe(2);
  const lines = started.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]!.startsWith(`switchboard: cannot connect to PostgreSQL at postgres://${user}:***@`)).toBe(true);
  expect(lines[0]).toMatch(reason);
  expect(started.stderr).not.toContain(`:${secret}@`);
}

describe('a server whose PostgreSQL cannot be reached at start', () => {
  it('says where and why in one line, without the password, and exits 2', async () => {
    // Taken, then released: nothing listens on it.
    const port = await freePort();
    expectOneLine(startWith(`postgres://switchboard:${PASSWORD}@127.0.0.1:${port}/switchboard`), 'switchboard', PASSWORD, /ECONNREFUSED/);
  });

  it.runIf(testEngine() === 'postgres')('the same for a wrong password and for a database that does not exist', () => {
    const admin = new URL(process.env[TEST_DATABASE_URL_ENV]!);
    const wrongPassword = new URL(admin);
    wrongPassword.password = PASSWORD;
    expectOneLine(startWith(wrongPassword.toString()), admin.username, PASSWORD, /password authentication failed/);

    const missing = new URL(admin);
    missing.pathname = '/sb_test_no_such_database';
    expectOneLine(startWith(missing.toString()), admin.username, admin.password, /database "sb_test_no_such_database" does not exist/);
  });
});
