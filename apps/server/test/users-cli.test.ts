/**
 * The people CLI (apps/server/src/cli/users.ts) and the token CLI's --user and --scopes, against
 * the store a real server uses (the first steps as real processes, the rest in this process on a
 * store of their own): a person and token made on the command
 * line sign in with their role, and a role change, a disable or an enable made there applies to
 * the server's next request. Runs on the test engine (the CLI gets the server's database URL on
 * PostgreSQL).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabaseFor, testEngine } from '@switchboard/store/testing';

import { tokenCli } from '../src/cli/token';
import { usersCli } from '../src/cli/users';
import { runAdminCommandProcess, type AdminCommandRun } from './admin-command-process';
import { startTestServer, type TestServer } from './harness';

let dataDir: string;
let cliEnv: Record<string, string>;
let server: TestServer;

/** The command as a real process, the way `npm run users` / `npm run token` start it. */
const spawnCli = (name: 'users' | 'token', args: string[]) => runAdminCommandProcess(name, args, cliEnv);

/**
 * On PostgreSQL the server learns of another process's change from the change feed; on SQLite it
 * sees every commit to the file before its next request, so there is nothing to wait for.
 */
async function serverReadChanges(): Promise<void> {
  if (testEngine() !== 'postgres') return;
  const latest = await server.store.changes.latestSeq();
  await expect.poll(() => server.changes.position >= latest, { timeout: 10_000, message: 'the server to read the change feed' }).toBe(true);
}

/**
 * The command in this process, on a store of its own (its own connection, as a CLI process has):
 * spawning costs seconds per run on a loaded machine, so only the first steps run as processes.
 */
async function runCli(cli: typeof usersCli, args: string[]): Promise<AdminCommandRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, cliEnv, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, stdout: out.map((l) => l + '\n').join(''), stderr: err.map((l) => l + '\n').join('') };
}

const users = async (...args: string[]) => {
  const run = await runCli(usersCli, args);
  await serverReadChanges();
  return run;
};
const token = (...args: string[]) => runCli(tokenCli, args);

async function session(secret: string): Promise<{ status: number; body: { user?: { role: string; display_name: string }; scopes?: string[] } }> {
  const res = await fetch(server.url + '/v1/auth/session', { headers: { authorization: `Bearer ${secret}` } });
  return { status: res.status, body: (await res.json()) as never };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-users-cli-'));
  const databaseUrl = await testDatabaseFor(dataDir);
  cliEnv = databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : { SWITCHBOARD_DATA_DIR: dataDir };
  server = await startTestServer({ dataDir });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('users and token CLIs against a running server', { timeout: 180_000 }, () => {
  let ana: { userId: string; tokenId: string; secret: string };

  test('create a person, then a narrowed token for them: it signs in with their role and only its scopes', async () => {
    const created = await spawnCli('users', ['create', 'Ana', 'Silva', '--role', 'operator', '--email', 'ana@example.com']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const userId = /usr_[0-9a-f]+/.exec(created.stdout)?.[0];
    expect(userId).toBeDefined();
    expect(created.stdout).toContain('"Ana Silva" (operator)');

    const made = await spawnCli('token', ['create', 'ana laptop', '--user', userId!, '--scopes', 'read,events:publish,runtime:reset']);
    await serverReadChanges();
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`for Ana Silva (${userId}, operator)`);
    // runtime:reset is beyond an operator: the CLI says so, and the token does not get it.
    expect(made.stdout).toContain('the operator role lacks runtime:reset');
    const secret = /sbk_[A-Za-z0-9_-]+/.exec(made.stdout)![0];
    ana = { userId: userId!, tokenId: /tok_[0-9a-f]+/.exec(made.stdout)![0], secret };

    const signedIn = await session(secret);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ display_name: 'Ana Silva', role: 'operator' });
    expect([...signedIn.body.scopes!].sort()).toEqual(['events:publish', 'read']);

    const list = await users('list');
    expect(list.code).toBe(0);
    const [header, ...rows] = list.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+ROLE\s+EMAIL\s+STATE\s+LAST SEEN\s+TOKENS\s+CREATED$/);
    const row = rows.find((r) => r.startsWith(userId!))!;
    expect(row).toMatch(/Ana Silva\s+operator\s+ana@example\.com\s+enabled\s+\S+\s+1\s/);

    const tokens = await token('list');
    expect(tokens.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+USER\s+SCOPES\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED$/);
    const tokenRow = tokens.stdout.split('\n').find((r) => r.startsWith(ana.tokenId))!;
    expect(tokenRow).toContain('Ana Silva (operator)');
    expect(tokenRow).toContain('read,events:publish,runtime:reset');
    expect(tokens.stdout).not.toContain(secret);
  });

  test('a role change, a disable and an enable on the command line apply to the next request', async () => {
    const publish = () => server.rpc('event.publish', { event_name: 'ticket.created', payload: { ticket_id: 'T-1', order_id: 'O-1', customer: 'C', subject: 'S' } }, { token: ana.secret });
    expect((await publish()).error).toBeUndefined();

    const demoted = await users('role', ana.userId, 'viewer');
    expect(demoted.code).toBe(0);
    expect(demoted.stdout).toContain('is now viewer');
    const refused = await publish();
    expect(refused.error?.data.code).toBe('FORBIDDEN');
    expect(refused.error?.data.details).toMatchObject({ required_scope: 'events:publish', role: 'viewer' });

    expect((await users('disable', ana.userId)).code).toBe(0);
    expect((await session(ana.secret)).status).toBe(401);
    expect((await users('list')).stdout.split('\n').find((r) => r.startsWith(ana.userId))).toContain('disabled');

    expect((await users('enable', ana.userId)).code).toBe(0);
    expect((await users('role', ana.userId, 'operator')).code).toBe(0);
    expect((await publish()).error).toBeUndefined();
  });

  test('the last enabled admin cannot be demoted or disabled; unknown ids fail with exit 1', async () => {
    const admins = (await users('list')).stdout.split('\n').filter((r) => /\sadmin\s+\S+\s+enabled\s/.test(r));
    expect(admins).toHaveLength(1);
    const adminId = admins[0]!.split(/\s+/)[0]!;
    const [demote, disable, unknownUser, unknownTokenUser] = await Promise.all([
      users('role', adminId, 'operator'),
      users('disable', adminId),
      users('enable', 'usr_doesnotexist'),
      token('create', 'orphan', '--user', 'usr_doesnotexist'),
    ]);
    for (const refused of [demote, disable]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('last enabled admin');
    }
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toContain('No user with id "usr_doesnotexist"');
    expect(unknownTokenUser.code).toBe(1);
    expect(unknownTokenUser.stderr).toContain('No user with id "usr_doesnotexist"');
    // The server's admin still administers.
    expect((await server.rpc('user.list', {})).error).toBeUndefined();
  });
});

// Argument handling runs in-process (spawning costs a second or two per run).
describe('users CLI arguments', () => {
  async function inProcess(args: string[], extraEnv: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await usersCli(args, { ...cliEnv, ...extraEnv }, { out: (l) => void out.push(l), err: (l) => err.push(l) });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  test.each([
    [[]],
    [['create']],
    [['create', 'Bo']],
    [['create', 'Bo', '--role']],
    [['create', 'Bo', '--role', 'superuser']],
    [['create', 'Bo', '--role', 'viewer', '--email', 'not-an-email']],
    [['create', 'Bo', '--role', 'viewer', '--colour', 'red']],
    [['create', 'Bo', '--role', 'viewer', '--role', 'admin']],
    [['create', 'n'.repeat(101), '--role', 'viewer']],
    [['role', 'usr_1']],
    [['role', 'usr_1', 'superuser']],
    [['disable']],
    [['enable', 'a', 'b']],
    [['list', 'extra']],
    [['frobnicate']],
  ])('usage error %j exits 2 with the usage text', async (args) => {
    const run = await inProcess(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: npm run users');
    expect(run.stdout).toBe('');
  });

  test('help prints the usage with the role table and exits 0', async () => {
    const run = await inProcess(['help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: npm run users');
    expect(run.stdout).toMatch(/reviewer\s+read, heartbeat, metrics, audit:read, mailbox:decide/);
  });

  test('a bad configuration is reported with the variable name', async () => {
    const run = await inProcess(['list'], { SWITCHBOARD_LOG_LEVEL: 'loud' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SWITCHBOARD_LOG_LEVEL');
  });
});
