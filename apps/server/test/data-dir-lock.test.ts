/**
 * One server per data folder: a second server process on a folder in use is refused with a
 * message naming the folder and the holder's pid, whatever port it asks for; the token CLI still
 * works beside the running server; a SIGKILLed holder leaves the folder free.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runAdminCommandProcess } from './admin-command-process';
import { CONTROL_BUNDLE } from './control-helpers';
import { runServerToExit, startServerProcess, type ServerProcess } from './server-process';

const TOKEN = 'sbk_data_dir_lock_test_token_01';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-lock-'));
const started: ServerProcess[] = [];
afterAll(() => {
  for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TOKEN: TOKEN, SWITCHBOARD_BUNDLE: CONTROL_BUNDLE };

it('refuses a second server on a folder in use, naming the folder and the pid; frees the folder when the holder is killed', async () => {
  const first = await startServerProcess(env);
  started.push(first);

  const second = runServerToExit(env);
  expect(second.status).toBe(2);
  expect(second.stderr).toContain(`the data folder ${dataDir} is in use`);
  expect(second.stderr).toContain(`pid ${first.child.pid}`);
  // The first server is unaffected.
  expect((await fetch(first.url + '/readyz')).status).toBe(200);

  // The token CLI is a short-lived writer on the same folder, not a second server.
  const cli = await runAdminCommandProcess('token', ['list'], { SWITCHBOARD_DATA_DIR: dataDir });
  expect(cli.code, cli.stderr).toBe(0);

  first.child.kill('SIGKILL');
  await first.exited;
  const restarted = await startServerProcess(env);
  started.push(restarted);
  expect((await fetch(restarted.url + '/readyz')).status).toBe(200);
  restarted.child.kill('SIGTERM');
  await restarted.exited;
}, 90_000);
