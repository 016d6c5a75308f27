/**
 * The real server as a child process on a data folder that outlives it, for crash tests that
 * SIGKILL it and start it again. Runs `node --import tsx` directly: a SIGKILL of the tsx CLI would
 * not reach the server running in its grandchild.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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

/** `readyTimeoutMs`: how long a start may take (several processes booting at once on a busy machine take longer). */
export async function startServerProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_DEMO: 'off',
      SWITCHBOARD_RATE_LIMIT_PER_S: '0',
      SWITCHBOARD_LOG_LEVEL: 'error',
      ...env,
    },
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
