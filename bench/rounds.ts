/**
 * What every side-by-side benchmark needs for its rounds: contenders as fresh processes (start a
 * script with tsx and learn its port; stop it), the median of a round's figures, the load average.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

/** Every process startProcess started and not yet seen exit: ended with this one, however it ends. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** Starts `script` (relative to `cwd`) with node and the tsx loader on a free port; resolves once it says where it listens. */
export function startProcess(script: string, env: Record<string, string>, cwd: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(cwd, script)], {
      cwd,
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
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

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Stops every process startProcess started that is still running (an interrupted benchmark). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stop(child, 5_000)));
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** The one-minute load average, for the per-round lines. */
export const loadAverage = () => os.loadavg()[0]!.toFixed(2);
