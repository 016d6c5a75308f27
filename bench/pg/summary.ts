/** The summary table: per target, the medians of the rounds on each engine, their ratio and a verdict. */
import { median } from '../rounds';
import type { ServersRound } from './servers';
import { HTTP_CONNECTIONS, count } from './settings';

export interface Row {
  target: string;
  postgres: number | undefined;
  sqlite: number | undefined;
  unit: string;
  met: boolean | undefined;
}

export function printSummary(rows: Row[]): void {
  const figure = (x: number | undefined, unit: string) => (x === undefined || !Number.isFinite(x) ? 'n/a' : unit === '/s' ? `${count(x)}/s` : `${x.toFixed(1)} ms`);
  const table = rows.map((r) => [
    r.target,
    figure(r.postgres, r.unit),
    figure(r.sqlite, r.unit),
    r.postgres !== undefined && r.sqlite !== undefined && Number.isFinite(r.postgres) && Number.isFinite(r.sqlite) ? `${(r.postgres / r.sqlite).toFixed(2)}x` : '-',
    r.met === undefined ? 'n/a' : r.met ? 'met' : 'MISSED',
  ]);
  const header = ['target (medians of the rounds)', 'postgres', 'sqlite', 'pg/sqlite', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of table) console.log(line(r));
}

/**
 * This checkout's PostgreSQL servers against BENCH_BEFORE_ROOT's, run in the same rounds: the
 * medians and after/before. Per-round figures are the lines printed as each round ran.
 */
export function printBeforeAfter(after: ServersRound[], before: ServersRound[]): void {
  const measures: { name: string; unit: '/s' | 'ms'; pick: (r: ServersRound) => number | undefined }[] = [
    { name: 'deliveries drained, 2 servers', unit: '/s', pick: (r) => r.drain.perSecond },
    { name: `http event.publish ${HTTP_CONNECTIONS}c over 2 servers`, unit: '/s', pick: (r) => r.publishes.rps },
    { name: 'publish call -> handler p50', unit: 'ms', pick: (r) => r.latency.p50 },
    { name: 'publish call -> handler p99', unit: 'ms', pick: (r) => r.latency.p99 },
    { name: 'change on B: runtime.changed p99', unit: 'ms', pick: (r) => r.change.changed?.p99 },
  ];
  const medianOf = (rounds: ServersRound[], pick: (r: ServersRound) => number | undefined) => {
    const xs = rounds.map(pick).filter((x): x is number => x !== undefined && Number.isFinite(x));
    return xs.length ? median(xs) : undefined;
  };
  const figure = (x: number | undefined, unit: string) => (x === undefined ? 'n/a' : unit === '/s' ? `${count(x)}/s` : `${x.toFixed(1)} ms`);
  const table = measures.map((m) => {
    const a = medianOf(after, m.pick);
    const b = medianOf(before, m.pick);
    return [m.name, figure(b, m.unit), figure(a, m.unit), a !== undefined && b !== undefined ? `${(a / b).toFixed(2)}x` : '-'];
  });
  const header = ['postgres, before vs this checkout (medians)', 'before', 'after', 'after/before'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of table) console.log(line(r));
}
