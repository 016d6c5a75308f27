/**
 * The one way tests, e2e specs and benchmarks start a server (or a benchmark's baseline script) as
 * a child process. This checkout's server runs from its build (scripts/builds.mjs), as `npm
 * start` runs it; other scripts and older checkouts as `node --import tsx SCRIPT`, directly, not
 * through the tsx CLI: a SIGKILL of the CLI would not reach the server running in its grandchild,
 * and crash tests kill it on purpose.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureServerBuild, serverBuild } from '../../../scripts/builds.mjs';
import { freePort } from './ports';
import { repoRoot, SERVER_SCRIPT } from './repository';

export interface ServerProcessOptions {
  /** The checkout to run (a benchmark's "before" tree); this repository by default. */
  root?: string;
  /** The script to run, relative to `root`; the server by default. */
  script?: string;
  /** Arguments after the script. */
  args?: string[];
  /** Variables over the base environment (they may override PORT and HOST too). */
  env?: Record<string, string>;
  /**
   * 'clean' (the default): nothing of this process's environment but PATH and HOME, so a test
   * never picks up a SWITCHBOARD_* of the shell. 'inherit': all of it (e2e and benchmarks).
   */
  baseEnv?: 'clean' | 'inherit';
  /** SWITCHBOARD_DATA_DIR, SWITCHBOARD_DATABASE_URL and SWITCHBOARD_TOKEN, when given. */
  dataDir?: string;
  databaseUrl?: string;
  token?: string;
  /**
   * Where it listens: a port of the caller's (known before the start, as a sign-in callback's must
   * be), a free one by default (readiness: GET /readyz answers 200), or 'announced': PORT=0 and
   * the port read from the line the script prints once it listens (benchmark baselines have no
   * /readyz, and a before-tree's server is started the way it always was).
   */
  port?: number | 'announced';
  /** What becomes of its output: kept (`output`, for failure messages), passed to this process's, or dropped. */
  stdout?: 'capture' | 'inherit' | 'ignore';
  stderr?: 'capture' | 'inherit' | 'ignore';
  /** How long a start may take (several processes booting at once on a busy machine take longer). */
  readyTimeoutMs?: number;
  /** How often /readyz is asked during the start. */
  readyPollMs?: number;
  /** Called with the child as soon as it is spawned (a benchmark ends it if interrupted mid-start). */
  onSpawn?: (child: ChildProcess) => void;
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  url: string;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<void>;
  /** The end of what it wrote to the captured streams. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL (a frozen process is woken first, or the kill waits for it); resolves once it exited. */
  kill(): Promise<void>;
  running(): boolean;
}

/** Captured output kept per process: enough for any failure message, bounded for long benchmarks. */
const OUTPUT_KEPT = 64_000;

/** The child's whole environment. */
export function serverProcessEnv(options: ServerProcessOptions, port: number): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = options.baseEnv === 'inherit' ? { ...process.env } : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  return {
    ...base,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...(options.dataDir !== undefined ? { SWITCHBOARD_DATA_DIR: options.dataDir } : {}),
    ...(options.databaseUrl !== undefined ? { SWITCHBOARD_DATABASE_URL: options.databaseUrl } : {}),
    ...(options.token !== undefined ? { SWITCHBOARD_TOKEN: options.token } : {}),
    ...options.env,
  };
}

function nodeArgs(options: ServerProcessOptions): { cwd: string; args: string[] } {
  const cwd = options.root ?? repoRoot;
  const script = options.script ?? SERVER_SCRIPT;
  // This checkout's server runs as `npm start` runs it, built; a before-tree's as it always ran.
  if (script === SERVER_SCRIPT && path.resolve(cwd) === path.resolve(repoRoot)) {
    ensureServerBuild();
    return { cwd, args: [serverBuild, ...(options.args ?? [])] };
  }
  return { cwd, args: ['--import', 'tsx', path.join(cwd, script), ...(options.args ?? [])] };
}

/** A server expected to refuse to start: runs it to its exit (at most 30 s) and returns how it ended. */
export function runServerToExit(options: ServerProcessOptions): { status: number | null; stderr: string } {
  const { cwd, args } = nodeArgs(options);
  return spawnSync(process.execPath, args, { cwd, env: serverProcessEnv(options, typeof options.port === 'number' ? options.port : 0), encoding: 'utf8', timeout: 30_000 });
}

export async function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const announced = options.port === 'announced';
  const chosenPort = announced ? 0 : (options.port as number | undefined) ?? (await freePort());
  const { cwd, args } = nodeArgs(options);
  const stdout = announced ? 'pipe' : options.stdout === 'capture' ? 'pipe' : (options.stdout ?? 'ignore');
  const stderr = options.stderr === 'capture' || options.stderr === undefined ? 'pipe' : options.stderr;
  const child = spawn(process.execPath, args, { cwd, env: serverProcessEnv(options, chosenPort), stdio: ['ignore', stdout, stderr] });
  options.onSpawn?.(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    if (output.length > 2 * OUTPUT_KEPT) output = output.slice(-OUTPUT_KEPT);
  };
  if (stderr === 'pipe') child.stderr!.on('data', keep);
  if (stdout === 'pipe' && (options.stdout === 'capture' || !announced)) child.stdout!.on('data', keep);
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const tail = () => output.slice(-4000);
  let port = chosenPort;
  try {
    if (announced) port = await announcedPort(child, options.stdout === 'capture', options.readyTimeoutMs);
    else await untilReady(`http://127.0.0.1:${chosenPort}`, ended, tail, options.readyTimeoutMs ?? 30_000, options.readyPollMs ?? 20);
  } catch (err) {
    // The caller never gets the process: end it here, or it outlives the test.
    child.kill('SIGKILL');
    throw new Error(`${options.script ?? SERVER_SCRIPT} in ${cwd}: ${(err as Error).message}`);
  }
  const kill = async () => {
    if (ended()) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  return {
    child,
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    exited,
    output: tail,
    running: () => !ended(),
    kill,
    async stop(graceMs = 15_000) {
      if (ended()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function untilReady(url: string, ended: () => boolean, tail: () => string, timeoutMs: number, pollMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ended()) throw new Error(`server exited during start: ${tail()}`);
    try {
      if ((await fetch(url + '/readyz')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the server process to become ready (${timeoutMs} ms): ${tail()}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The port of the script's "listening N" (baselines) or "running: http://127.0.0.1:N" (the server) line. */
function announcedPort(child: ChildProcess, keepReading: boolean, timeoutMs: number | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => reject(new Error(`no listening line within ${timeoutMs} ms: ${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)|running: http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        // Drained from now on (a full pipe would stall the server), unless the caller keeps it.
        if (!keepReading) child.stdout!.resume();
        resolve(Number(m[1] ?? m[2]));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before listening: ${out}`));
    });
  });
}
