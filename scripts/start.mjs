#!/usr/bin/env node
// `npm start`: builds the console and the server when a build is missing or older than its
// sources, then runs the server (embedded SQLite store in ./data, demo data on first start).
import { spawn, spawnSync } from 'node:child_process';
import { clearInterval, setInterval } from 'node:timers';
import path from 'node:path';
import { ensureConsoleBuild, ensureServerBuild, serverBuild } from './builds.mjs';

try {
  ensureConsoleBuild();
  ensureServerBuild();
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

// An IPC channel ties the server to this launcher: if the launcher dies (even by SIGKILL), the
// channel closes and the server shuts down instead of holding its port.
const server = spawn(process.execPath, [serverBuild], {
  cwd: root,
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => server.kill('SIGTERM'));
// `npm start` runs this as npm → sh → node: if npm (or the shell) is killed outright, nothing
// tells this process, so it watches its parent and grandparent and stops the server when either
// is gone.
const parentOf = (pid) => {
  const r = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
  const ppid = Number(r.stdout?.trim());
  return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
};
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const launchers = [process.ppid, parentOf(process.ppid)].filter((pid) => pid !== undefined && pid > 1);
const watchParent = setInterval(() => {
  if (launchers.some((pid) => !alive(pid)) || process.ppid === 1) server.kill('SIGTERM');
}, 1000);
server.on('exit', (code, signal) => {
  clearInterval(watchParent);
  process.exit(code ?? (signal ? 1 : 0));
});
