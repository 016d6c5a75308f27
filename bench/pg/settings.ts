/** bench:pg's settings (environment variables and fixed figures) and small formatting helpers. */
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/**
 * The timed drain. 5,000 took about 1 s on two servers, and one engine's rounds spread from 4,082 to
 * 6,757/s within one run (session of 2026-11-26): a second of a shared 2-core machine is mostly
 * its neighbours' noise. 20,000 (about 4 s) measures a sustained rate.
 */
export const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
export const CHANGE_SAMPLES = Number(process.env.BENCH_CHANGE_SAMPLES ?? 50);
export const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
export const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 300);
/**
 * Untimed reads before each case's timed ones. The target is a steady-state p99, and each round's
 * server is a fresh process: over its first 150 pages its p50 falls from about 4.5 to 3 ms while V8
 * optimizes the path, so with 10 the first case's p99 measured the warm-up (5 of its 13 reads over
 * 7 ms fell in the first 50).
 */
export const LIST_WARMUP = 100;
/**
 * Untimed work of the same shape before the drain and the latency phase, for the same reason: the
 * targets are rates and latencies of a server that has been running, and each round's servers are
 * fresh processes. Timed cold, 2 servers (scratch runs, one after the other): the drain rose from
 * about 320 to 450-570 deliveries per 100 ms over its first seconds as V8 optimized the claim and
 * completion path (3,400-3,800/s cold, 4,200-5,400/s after 3,000 untimed), and publish -> handler
 * at 100/s had p50 5.5-7.6 ms over a server's first 5 s and 4.5-6.2 ms after 5 s more. The cold
 * figures are still printed per round.
 *
 * The drain's claim and completion run once per batch of up to 64 deliveries, so 2,000 untimed
 * deliveries are some 16 calls per server of each: too few. 2 servers (scratch/lat.ts): completions
 * per 100 ms rose from about 250 to 500-640 over the first 10,000 deliveries after start, and a
 * drain timed after 2,000 untimed still climbed from about 250 per 100 ms (4,288 and 5,388/s);
 * after 12,000 untimed the next 5,000 ran at 512-640 per 100 ms from their start (5,342 and
 * 5,727/s). So 10,000 are drained untimed first.
 *
 * The publish path warms up far more slowly than the drain: at 100/s each publish is a group and a
 * completion of its own, so the functions it runs are called a few hundred times a second, and V8
 * takes tens of seconds to optimize them. 10 s at 100/s through server A of 2 (scratch/lat.ts, one
 * run after the other): after 3 s untimed, p50 6.8 ms, p99 27.7 ms, server A 5.7 ms of CPU per
 * publish; after 30 s untimed, p50 4.0 ms, p99 14.7 ms, 4.1 ms of CPU. `perf` of server A over a
 * server's first seconds: most of its main thread in V8's inline-cache builtins (Builtins_LoadIC,
 * baseline code) and a quarter of its samples on TurboFan's compiler threads, still compiling
 * hundreds of functions 15 s in. So the latency phase publishes for 30 s untimed first.
 */
export const WARMUP_DELIVERIES = Number(process.env.BENCH_WARMUP_DELIVERIES ?? 10_000);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 30);
/**
 * The same load, untimed, before each timed HTTP publish figure, on every contender (the servers of
 * both engines and the data-path baseline). Without it server B met that load cold (the latency
 * phase publishes through server A only; B served fewer publishes than A in each round of a run,
 * 310-775 against 449-892/s) and the data-path baseline was measured from its server's first
 * request.
 */
export const HTTP_WARMUP_SECONDS = Number(process.env.BENCH_HTTP_WARMUP_SECONDS ?? 5);
export const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'servers,list').split(',');
export const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT || undefined;
export const DATAPATH_REF = process.env.BENCH_DATAPATH_REF ?? 'fe3e12b';
export const TOKEN = 'sbk_bench_pg_token_000000000001';
export const LATENCY_RATE = 100;
export const HTTP_CONNECTIONS = 64;
export const CHANGE_SPACING_MS = 200;
export const CHANGE_TIMEOUT_MS = 5000;
export const LIST_POLL_MS = 10;
export const PAGE = 50;
export const DEEP_PAGE = 100;

export type Engine = 'postgres' | 'sqlite';
export const ENGINES: Engine[] = ['postgres', 'sqlite'];
export const NODES: Record<Engine, number> = { postgres: 2, sqlite: 1 };
export const label = (engine: Engine) => (engine === 'postgres' ? 'postgres, 2 servers' : 'sqlite, 1 server');

/** Wall-clock milliseconds with a fraction, comparable with the servers' ISO timestamps (same machine). */
export const nowMs = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};


export const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : '-');
export const count = (x: number) => Math.round(x).toLocaleString('en');
