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
 * Untimed reads before each case's timed ones: the target is a steady-state p99 and each round's
 * server is a fresh process still being optimized by V8 (bench/README.md, "Why the warm-ups").
 */
export const LIST_WARMUP = 100;
/**
 * Untimed work of the same shape before the drain and the latency phase, for the same reason: the
 * targets are rates and latencies of a server that has been running, and each round's servers are
 * fresh processes. The drain's claim and completion run once per batch, so it takes thousands of
 * deliveries before they are optimized; the publish path runs a few hundred times a second and
 * takes tens of seconds. The sizes and what they were chosen from are in bench/README.md ("Why the
 * warm-ups"); the cold figures are still printed per round.
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
// `nodes` is the scenario's name from before the server-process rename (ADR 0017).
export const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'servers,list').split(',').map((s) => (s === 'nodes' ? 'servers' : s));
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
