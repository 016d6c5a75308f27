/**
 * Ages of a server's times ("0.8 s ago"). Server times are taken on the database's clock, which the
 * browser's may differ from by seconds or more; so an age is measured against the report's own
 * `ts` (the answering server's clock, when it read the servers) and then counted on by the browser's
 * clock from the moment the report arrived. Only the time since arrival is on the browser's clock.
 */

/** A report of servers: the server's time when it was made, and the browser's when it arrived. */
export interface ServerReportTime {
  ts: string;
  receivedAt: number;
}

/** Milliseconds from `iso` to `now`, as explained above; never negative. */
export function serverAgeMs(iso: string, report: ServerReportTime, now: number): number {
  const atReport = Date.parse(report.ts) - Date.parse(iso);
  const sinceReport = now - report.receivedAt;
  const age = atReport + sinceReport;
  return Number.isFinite(age) ? Math.max(0, age) : 0;
}

/**
 * "0.8 s ago" while seconds matter (heartbeats are a second apart, a server is dead after a few),
 * whole seconds up to a minute, then minutes, hours and days.
 */
export function formatAge(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  // Floors, not rounding: 9.96 s must not read "10.0 s", and an age must never jump ahead of itself.
  if (s < 10) return `${(Math.floor(s * 10) / 10).toFixed(1)} s ago`;
  if (s < 60) return `${Math.floor(s)} s ago`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min ago`;
  return `${Math.floor(h / 24)} d ${h % 24} h ago`;
}
