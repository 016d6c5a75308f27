/**
 * The store's reads behind one runtime.incidents page (the runtime sorts, pages and states them in
 * memory), for the benchmarks that time runtime.incidents at the store layer.
 */
import type { Store } from '@switchboard/store';

export async function incidentPageReads(store: Store, window: { windowStart: string; windowEnd: string; mcpOnly: boolean }, pageSize: number): Promise<unknown> {
  const groups = await store.incidents.windowGroups({ ...window, histogramBuckets: 24 });
  await store.incidents.groupCounts({ ...window, windowStart: new Date(Math.max(Date.parse(window.windowStart), Date.parse(window.windowEnd) - 3600_000)).toISOString() });
  await store.incidents.states();
  const latest = groups.sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0)).slice(0, pageSize);
  return store.incidents.samples(window, latest);
}
