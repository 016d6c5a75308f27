/**
 * The HTTP load generator of bench:http and bench:list: wrk when it is installed, autocannon when it
 * is not. autocannon runs in the bench's own Node process and on a 2-core machine takes CPU the
 * server under test would use, so a ratio against a lighter server measures the load generator as
 * much as the servers; wrk (C, one thread by default) takes far less. Each bench prints which ran.
 *
 * Environment: BENCH_LOAD_GENERATOR (wrk or autocannon: force one; wrk fails if it is absent),
 * BENCH_WRK_THREADS (wrk's -t, 1).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface LoadRun {
  port: number;
  token: string;
  connections: number;
  /** Whole seconds (wrk takes no fractions). */
  seconds: number;
  /** The JSON-RPC request body; each `__N__` in it becomes a counter unique to the request. */
  body: string;
}

/** Figures of one run; latencies in milliseconds. */
export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  /** Socket errors and timeouts. */
  errors: number;
  /** Answers with a status of 400 or more (wrk counts those; autocannon counts every non-2xx). */
  non2xx: number;
}

export const REQUEST_COUNTER = '__N__';
const WRK_SCRIPT = fileURLToPath(new URL('./wrk/json-rpc.lua', import.meta.url));
const WRK_THREADS = Number(process.env.BENCH_WRK_THREADS ?? 1);

/** /usr/bin/wrk, or wrk on PATH; undefined when neither exists. */
function findWrk(): string | undefined {
  const candidates = ['/usr/bin/wrk', ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'wrk'))];
  return candidates.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function chooseGenerator(): { name: 'wrk'; binary: string } | { name: 'autocannon' } {
  const forced = process.env.BENCH_LOAD_GENERATOR;
  if (forced !== undefined && forced !== 'wrk' && forced !== 'autocannon') throw new Error(`BENCH_LOAD_GENERATOR must be wrk or autocannon, not ${forced}`);
  if (forced === 'autocannon') return { name: 'autocannon' };
  const binary = findWrk();
  if (binary) return { name: 'wrk', binary };
  if (forced === 'wrk') throw new Error('BENCH_LOAD_GENERATOR=wrk, but no wrk at /usr/bin/wrk or on PATH (apt-get install wrk)');
  return { name: 'autocannon' };
}

const generator = chooseGenerator();
export const loadGeneratorName = generator.name;

/** What ran, for the bench's first line: "wrk (/usr/bin/wrk, 1 thread)" or "autocannon (wrk not found)". */
export const loadGeneratorLabel =
  generator.name === 'wrk'
    ? `wrk (${generator.binary}, ${WRK_THREADS} thread${WRK_THREADS === 1 ? '' : 's'})`
    : `autocannon (${process.env.BENCH_LOAD_GENERATOR === 'autocannon' ? 'BENCH_LOAD_GENERATOR' : 'wrk not found'})`;

export function runLoad(run: LoadRun): Promise<LoadFigures> {
  return generator.name === 'wrk' ? runWrk(generator.binary, run) : runAutocannon(run);
}

interface WrkResult {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect_errors: number;
  read_errors: number;
  write_errors: number;
  timeouts: number;
  non2xx: number;
}

async function runWrk(binary: string, run: LoadRun): Promise<LoadFigures> {
  const threads = Math.min(WRK_THREADS, run.connections);
  const args = ['-t', String(threads), '-c', String(run.connections), '-d', `${Math.max(1, Math.round(run.seconds))}s`, '--timeout', '10s', '-s', WRK_SCRIPT, `http://127.0.0.1:${run.port}/v1/rpc`];
  const child = spawn(binary, args, {
    env: { ...process.env, WRK_RPC_BODY: run.body, WRK_RPC_TOKEN: run.token, WRK_RPC_THREADS: String(threads) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  const line = stdout.split('\n').find((l) => l.startsWith('WRK_RESULT '));
  if (code !== 0 || !line) throw new Error(`wrk exited with ${code}: ${(stderr || stdout).trim().slice(0, 500)}`);
  const r = JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult;
  return {
    rps: r.requests / (r.duration_us / 1e6),
    p50: r.p50_us / 1000,
    p99: r.p99_us / 1000,
    errors: r.connect_errors + r.read_errors + r.write_errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

async function runAutocannon(run: LoadRun): Promise<LoadFigures> {
  const [first, ...rest] = run.body.split(REQUEST_COUNTER);
  let counter = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${run.port}/v1/rpc`,
    connections: run.connections,
    duration: run.seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
    ...(rest.length === 0
      ? { body: run.body }
      : {
          requests: [
            {
              setupRequest: (req) => {
                const n = String(++counter);
                return { ...req, body: first + rest.map((part) => n + part).join('') };
              },
            },
          ],
        }),
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx };
}
