/**
 * The token CLI (apps/server/src/cli/token.ts), run as a real process against a data folder that a
 * real server then uses: tokens it creates authenticate, tokens it revokes stop working.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tokenCli } from '../src/cli/token';
import { runAdminCommandProcess } from './admin-command-process';
import { startTestServer, type TestServer } from './harness';
import { rawPost } from './rpc-helpers';

const runCli = (args: string[], env: Record<string, string>) => runAdminCommandProcess('token', args, env);

let dataDir: string;
let server: TestServer | undefined;
const env = () => ({ SWITCHBOARD_DATA_DIR: dataDir });
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health.ping', params: {} });

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cli-'));
});
afterAll(async () => {
  if (server) await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('token CLI', () => {
  let created: { id: string; secret: string };

  test('create prints the id and the secret once; list shows it without the secret', async () => {
    const run = await runCli(['create', 'ci', 'pipeline'], env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const id = /tok_[0-9a-f]+/.exec(run.stdout)?.[0];
    const secret = /sbk_[A-Za-z0-9_-]+/.exec(run.stdout)?.[0];
    expect(id).toBeDefined();
    expect(secret).toBeDefined();
    expect(run.stdout).toContain('"ci pipeline"');
    expect(run.stdout).toContain('shown once');
    created = { id: id!, secret: secret! };

    const list = await runCli(['list'], env());
    expect(list.code).toBe(0);
    const [header, row] = list.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+USER\s+SCOPES\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED$/);
    expect(row).toContain(created.id);
    expect(row).toContain('ci pipeline');
    // Without --user, a new admin named after the token, with every scope of the role.
    expect(row).toMatch(/ci pipeline\s+ci pipeline \(admin\)\s+role\s/);
    expect(row).toContain(created.secret.slice(0, 8));
    expect(row).toContain('never');
    expect(list.stdout).not.toContain(created.secret);
  });

  test('a created token authenticates against a server on that data folder; revoke ends it', async () => {
    server = await startTestServer({ dataDir });
    const auth = { authorization: `Bearer ${created.secret}` };
    expect((await rawPost(server, '/v1/rpc', PING, auth)).status).toBe(200);

    const revoke = await runCli(['revoke', created.id], env());
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toContain(`Revoked token ${created.id}`);
    expect((await rawPost(server, '/v1/rpc', PING, auth)).status).toBe(401);

    const list = await runCli(['list'], env());
    const row = list.stdout.split('\n').find((line) => line.includes(created.id))!;
    expect(row).not.toMatch(/\s-$/);
    expect(row).not.toContain('never');
    expect(list.stdout).not.toContain(created.secret);
    expect(list.stdout).not.toContain(server.token);
  });

  test('revoking an unknown id is a clear error with a non-zero exit; revoking twice says so', async () => {
    const [unknown, twice] = await Promise.all([runCli(['revoke', 'tok_doesnotexist'], env()), runCli(['revoke', created.id], env())]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No token with id "tok_doesnotexist"');
    expect(twice.code).toBe(0);
    expect(twice.stdout).toContain('already revoked');
  });
});

// Argument and configuration handling run in-process (spawning costs a second or two per run).
describe('token CLI arguments', () => {
  async function inProcess(args: string[], extraEnv: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await tokenCli(args, { ...env(), ...extraEnv }, { out: (l) => void out.push(l), err: (l) => err.push(l) });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  test.each([
    [[]],
    [['create']],
    [['create', '   ']],
    [['create', 'x', '--user']],
    [['create', 'x', '--scopes', 'read,everything']],
    [['create', 'x', '--scopes', ',']],
    [['create', 'x', '--owner', 'usr_1']],
    [['revoke']],
    [['revoke', 'a', 'b']],
    [['list', 'extra']],
    [['frobnicate']],
  ])(
    'usage error %j exits 2 with the usage text',
    async (args) => {
      const run = await inProcess(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Usage: npm run token');
      expect(run.stdout).toBe('');
    },
  );

  test('help prints the usage and exits 0', async () => {
    const run = await inProcess(['help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: npm run token');
  });

  test('an over-long name is refused', async () => {
    expect((await inProcess(['create', 'n'.repeat(101)])).code).toBe(2);
  });

  test('a bad configuration is reported with the variable name', async () => {
    const run = await inProcess(['list'], { SWITCHBOARD_LOG_LEVEL: 'loud' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SWITCHBOARD_LOG_LEVEL');
  });
});
