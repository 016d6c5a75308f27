/**
 * What every side-by-side benchmark needs for its rounds: contenders as fresh processes (start a
 * script with tsx and learn its port; stop it), the median of a round's figures, the load average.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { startServerProcess } from '@switchboard/testkit';

/** Every process startProcess started and not yet seen exit: ended with this one, however it ends. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/**
 * Starts `script` (relative to `cwd`: this checkout or BENCH_BEFORE_ROOT's) through the testkit's
 * server process on a port the script announces; resolves once it says where it listens.
 */
export async function startProcess(script: string, env: Record<string, string>, cwd: string): Promise<{ child: ChildProcess; port: number }> {
  const track = (child: ChildProcess) => {
    running.add(child);
    child.once('exit', () => running.delete(child));
  };
  const started = await startServerProcess({ root: cwd, script, env, baseEnv: 'inherit', port: 'announced', stderr: 'inherit', onSpawn: track });
  return { child: started.child, port: started.port };
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
