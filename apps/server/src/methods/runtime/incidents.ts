import type { IncidentPosition } from '@switchboard/runtime';
import { z } from 'zod';
import { keysetPage } from '../../pagination/keyset-page';
import { toIncident } from '../../records/incident';
import type { Handler } from '../../rpc/handler';

export const DEFAULT_SINCE_HOURS = 24;
const DEFAULT_HISTOGRAM_BUCKETS = 24;
const HOUR_MS = 60 * 60 * 1000;

/**
 * The window is fixed when the first page is read and carried in the cursor: counts and last_seen
 * of a group would otherwise move while a client pages, and the keyset would skip or repeat groups.
 */
const position: z.ZodType<IncidentPosition & { window_start: string; window_end: string }> = z.strictObject({
  window_start: z.string(),
  window_end: z.string(),
  count: z.number().int(),
  last_seen: z.string(),
  component: z.string(),
  error_code: z.string().nullable(),
  cause_key: z.string().optional(),
  first_seen: z.string().optional(),
  level_rank: z.number().int().optional(),
  trend: z.number().optional(),
});

export const runtimeIncidents: Handler<'runtime.incidents'> = async (params, ctx) => {
  const binding = {
    since_hours: params.since_hours ?? DEFAULT_SINCE_HOURS,
    component: params.component,
    mcp_only: params.mcp_only ?? false,
    sort: params.sort ?? 'last_seen',
    states: params.states ? [...new Set(params.states)].sort() : null,
  };
  const histogramBuckets = params.histogram_buckets ?? DEFAULT_HISTOGRAM_BUCKETS;
  const now = ctx.store.clock.now().getTime();
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'runtime.incidents', binding, position, cursor: params.cursor, limit: params.limit },
    async (cursor, limit) => {
      // The end is exclusive; +1 ms keeps records written in this very millisecond.
      const windowEnd = cursor?.window_end ?? new Date(now + 1).toISOString();
      const windowStart = cursor?.window_start ?? new Date(now + 1 - binding.since_hours * HOUR_MS).toISOString();
      const read = await ctx.runtime.incidents.page({
        windowStart,
        windowEnd,
        component: binding.component,
        mcpOnly: binding.mcp_only,
        sort: binding.sort,
        states: binding.states ?? undefined,
        now: new Date(now).toISOString(),
        limit,
        histogramBuckets,
        after: cursor,
      });
      return { incidents: read.incidents, next: read.next && { window_start: windowStart, window_end: windowEnd, ...read.next } };
    },
  );
  return { incidents: page.incidents.map(toIncident), ...nextCursor };
};
