/**
 * Builds the console when needed and starts one shared server (fresh data folder, demo traffic)
 * for the whole run. Tests find it through E2E_BASE_URL and E2E_TOKEN.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureConsoleBuild } from '../scripts/builds.mjs';
import { ServerProcess } from './server-process';

export default async function globalSetup(): Promise<() => Promise<void>> {
  ensureConsoleBuild();
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
