/**
 * For tests: what the incident list should hold for a set of log records, computed in memory the
 * plain way (filter, group by component and error code, sort). The store's set reads and the
 * runtime's incident pages are both checked against it.
 */

/** A log record as the reference model sees it; `seq` orders records written in the same millisecond. */
export interface ReferenceLog {
  log_id: string;
  ts: string;
  seq: number;
  level_rank: number;
  component: string;
  error_code: string | null;
  message: string;
}

export interface ReferenceGroupQuery {
  windowStart: string;
  windowEnd: string;
  component?: string;
  mcpOnly?: boolean;
  sort: 'last_seen' | 'count';
}

/** The incidents (warn and above) of `logs` in the window, in the list's order. */
export function expectedIncidentGroups(logs: readonly ReferenceLog[], q: ReferenceGroupQuery) {
  const inWindow = logs.filter(
    (l) =>
      l.level_rank >= 2 &&
      l.ts >= q.windowStart &&
      l.ts < q.windowEnd &&
      (q.component === undefined || l.component === q.component) &&
      (!q.mcpOnly || l.component.startsWith('mcp.')),
  );
  const groups = new Map<string, ReferenceLog[]>();
  for (const l of inWindow) {
    const k = JSON.stringify([l.component, l.error_code]);
    groups.set(k, [...(groups.get(k) ?? []), l]);
  }
  const out = [...groups.values()].map((g) => {
    const latest = [...g].sort((a, b) => (a.ts === b.ts ? b.seq - a.seq : a.ts < b.ts ? 1 : -1));
    return {
      component: g[0]!.component,
      error_code: g[0]!.error_code,
      count: g.length,
      first_seen: g.map((l) => l.ts).sort()[0]!,
      last_seen: latest[0]!.ts,
      level_rank: Math.max(...g.map((l) => l.level_rank)),
      sample_message: latest[0]!.message,
      sample_log_ids: latest.slice(0, 5).map((l) => l.log_id),
      times: g.map((l) => l.ts),
    };
  });
  const cmp = (a: (typeof out)[number], b: (typeof out)[number]) =>
    (q.sort === 'count' ? b.count - a.count : 0) ||
    (a.last_seen === b.last_seen ? 0 : a.last_seen < b.last_seen ? 1 : -1) ||
    (a.component === b.component ? 0 : a.component < b.component ? -1 : 1) ||
    ((a.error_code ?? '') < (b.error_code ?? '') ? -1 : (a.error_code ?? '') > (b.error_code ?? '') ? 1 : 0);
  return out.sort(cmp);
}
