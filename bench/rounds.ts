/**
 * What every side-by-side benchmark needs for its rounds: contenders as fresh processes (start a
 * script with tsx and learn its port; stop it), the median of a round's figures, the load average.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

/** Starts `script` (relative to `cwd`) with node and the tsx loader on a free port; resolves once it says where it listens. */
export function startProcess(script: string, env: Record<string, string>, cwd: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(cwd, script)], {
      cwd,
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)|running: http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ child, port: Number(m[1] ?? m[2]) });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening: ${out}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** The one-minute load average, for the per-round lines. */
export const loadAverage = () => os.loadavg()[0]!.toFixed(2);
