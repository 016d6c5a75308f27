/** The summary table: per target, the medians of the rounds on each engine, their ratio and a verdict. */
import { count } from './settings';

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
