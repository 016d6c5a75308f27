/**
 * How an incident list is ordered and paged: by the chosen key, then latest first, then by the
 * group key, so the order is total and a position (the last row of a page) resumes it exactly.
 */
export type IncidentSort = 'last_seen' | 'count' | 'severity' | 'first_seen' | 'trend';

/** Where a page ended in (sort key DESC, last_seen DESC, component, error_code, cause) order. */
export interface IncidentPosition {
  count: number;
  last_seen: string;
  component: string;
  error_code: string | null;
  cause_key?: string;
  first_seen?: string;
  level_rank?: number;
  trend?: number;
}

export type IncidentComparator = (a: IncidentPosition, b: IncidentPosition) => number;

export function incidentOrder(sort: IncidentSort): IncidentComparator {
  const primary = (a: IncidentPosition, b: IncidentPosition): number => {
    switch (sort) {
      case 'count':
        return b.count - a.count;
      case 'severity':
        return (b.level_rank ?? 0) - (a.level_rank ?? 0);
      case 'first_seen':
        return compareText(b.first_seen ?? '', a.first_seen ?? '');
      case 'trend':
        return (b.trend ?? 0) - (a.trend ?? 0);
      default:
        return 0;
    }
  };
  return (a, b) =>
    primary(a, b) ||
    compareText(b.last_seen, a.last_seen) ||
    compareText(a.component, b.component) ||
    compareText(a.error_code ?? '', b.error_code ?? '') ||
    compareText(a.cause_key ?? '', b.cause_key ?? '');
}

const HOUR_MS = 3_600_000;

/** The last hour of a window (all of it when shorter): the span a trend compares. */
export function trendSpan(window: { windowStart: string; windowEnd: string }): { windowStart: string; windowEnd: string } {
  const end = Date.parse(window.windowEnd);
  return { windowStart: new Date(Math.max(Date.parse(window.windowStart), end - HOUR_MS)).toISOString(), windowEnd: window.windowEnd };
}

/**
 * A group's trend: its occurrences in the window's last hour against its mean hourly rate over
 * the window (1 is steady, above 1 rising), to two decimals.
 */
export function trend(lastHourCount: number, windowCount: number, window: { windowStart: string; windowEnd: string }): number {
  if (windowCount <= 0) return 0;
  const windowHours = Math.max(1, (Date.parse(window.windowEnd) - Date.parse(window.windowStart)) / HOUR_MS);
  return Math.round((lastHourCount / (windowCount / windowHours)) * 100) / 100;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
