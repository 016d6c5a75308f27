/**
 * The incident rollups beside the log records (decision 0009) and their periods: what the write
 * path, the window read and the rows kept in memory all key by.
 */
export type IncidentRollup = 'incident_hours' | 'incident_six_hours' | 'incident_minutes';

/** Each rollup's period: its column, its length in ms, and how many characters of an ISO time name one. */
export const ROLLUP_PERIODS: Record<IncidentRollup, { column: string; ms: number; textLength: number }> = {
  incident_hours: { column: 'hour', ms: 3_600_000, textLength: 13 },
  // A block is named by its first hour; it is computed from a time, not cut from it.
  incident_six_hours: { column: 'block', ms: 6 * 3_600_000, textLength: 13 },
  incident_minutes: { column: 'minute', ms: 60_000, textLength: 16 },
};

/** Sorted period starts as [from, to) ranges, adjacent periods joined. */
export function adjacentRanges(starts: ReadonlySet<number>, periodMs: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (const at of [...starts].sort((x, y) => x - y)) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === at) last[1] = at + periodMs;
    else ranges.push([at, at + periodMs]);
  }
  return ranges;
}
