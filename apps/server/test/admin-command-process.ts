/** An administration command run as a real process, the way `npm run token|users|audit` starts it. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const launcher = path.join(root, 'scripts', 'admin-command.mjs');

export interface AdminCommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run <name> -- <args>` with only PATH, HOME and `env` in its environment. */
export function runAdminCommandProcess(name: 'token' | 'users' | 'audit', args: string[], env: Record<string, string>): Promise<AdminCommandRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [launcher, name, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
