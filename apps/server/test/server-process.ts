/**
 * The real server as a child process on a data folder that outlives it, for crash tests that
 * SIGKILL it and start it again. Runs `node --import tsx` directly: a SIGKILL of the tsx CLI would
 * not reach the server running in its grandchild.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './control-helpers';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const SERVER_ARGS = ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')];

/** The child's whole environment: nothing of the test runner's but PATH and HOME. */
function serverEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    SWITCHBOARD_DEMO: 'off',
    SWITCHBOARD_RATE_LIMIT_PER_S: '0',
    SWITCHBOARD_LOG_LEVEL: 'error',
    ...env,
  };
}

/** A server expected to refuse to start: runs it to its exit (at most 30 s) and returns how it ended. */
export function runServerToExit(env: Record<string, string>): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, SERVER_ARGS, { cwd: root, env: serverEnv(env), encoding: 'utf8', timeout: 30_000 });
}

/** `readyTimeoutMs`: how long a start may take (several processes booting at once on a busy machine take longer). */
export async function startServerProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: root,
    env: serverEnv({ PORT: String(port), ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited during start: ${stderr}`);
        try {
          return (await fetch(url + '/readyz')).status === 200;
        } catch {
          return false;
        }
      },
      readyTimeoutMs,
      'the server process to become ready',
    );
  } catch (err) {
    // The caller never gets the process: end it here, or it outlives the test.
    child.kill('SIGKILL');
    throw err;
  }
  return { child, url, exited };
}
