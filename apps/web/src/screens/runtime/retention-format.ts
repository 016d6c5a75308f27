/** How the Retention section words settings, sizes and a pass's counts. */
import type { RetentionRun } from '../../api/retention';

/** "30 days", or "forever" for 0. */
export function keptFor(days: number): string {
  if (days === 0) return 'forever';
  return days === 1 ? '1 day' : `${days.toLocaleString()} days`;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** A size in bytes as people read it: "1.4 GB" (powers of 1024). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value >= 100 ? 0 : 1)} ${UNITS[unit]}`;
}

const KIND_LABELS: Record<keyof RetentionRun['removed'], string> = {
  runs: 'runs',
  events: 'events',
  deliveries: 'deliveries',
  dead_letters: 'dead letters',
  turns: 'turns',
  conversations: 'conversations',
  queued_publishes: 'queued publishes',
  logs: 'log records',
  incident_hours: 'incident hours',
  audit: 'audit records',
};

/** The kinds a pass removed (or would), biggest first, without the zeros. */
export function removedRows(removed: RetentionRun['removed']): [string, number][] {
  return (Object.keys(KIND_LABELS) as (keyof RetentionRun['removed'])[])
    .filter((k) => removed[k] > 0)
    .map((k) => [KIND_LABELS[k], removed[k]] as [string, number])
    .sort((a, b) => b[1] - a[1]);
}

export function totalRemoved(removed: RetentionRun['removed']): number {
  return Object.values(removed).reduce((sum, n) => sum + n, 0);
}
