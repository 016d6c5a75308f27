/**
 * Builds the console when needed and starts one shared server (fresh data folder, demo traffic)
 * for the whole run. Tests find it through E2E_BASE_URL and E2E_TOKEN.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerProcess, repoRoot } from './server-process';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function buildConsoleIfStale(): void {
  const index = path.join(repoRoot, 'dist', 'web', 'index.html');
  const sources = [path.join(repoRoot, 'apps', 'web'), path.join(repoRoot, 'packages', 'contract', 'src')];
  if (fs.existsSync(index) && Math.max(...sources.map(newestMtime)) <= fs.statSync(index).mtimeMs) return;
  const r = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('console build failed');
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  buildConsoleIfStale();
  const server = await ServerProcess.start();
  process.env.E2E_BASE_URL = server.url;
  process.env.E2E_TOKEN = server.token;
  const lockDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-e2e-locks-'));
  process.env.E2E_LOCK_DIR = lockDir;
  return async () => {
    fs.rmSync(lockDir, { recursive: true, force: true });
    await server.dispose();
  };
}
