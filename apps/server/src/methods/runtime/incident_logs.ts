import { DEFAULT_PAGE_LIMIT, RpcError } from '@switchboard/contract';
import { parseIncidentId, toLogRecord } from '../../records/incident';
import { parseJsonObject } from '../../records/omit-absent';
import type { Handler } from '../../rpc/handler';
import { DEFAULT_SINCE_HOURS } from './incidents';

const HOUR_MS = 60 * 60 * 1000;
/** event.redrive takes at most this many dead_letter_ids. */
const MAX_REDRIVE_IDS = 1000;

export const runtimeIncidentLogs: Handler<'runtime.incident_logs'> = async (params, ctx) => {
  const key = parseIncidentId(params.incident_id);
  const notFound = () => new RpcError('NOT_FOUND', `No incident ${params.incident_id} in the window`, { resource: 'incident', id: params.incident_id });
  if (!key) throw notFound();
  const now = ctx.store.clock.now().getTime();
  const window = {
    windowStart: new Date(now + 1 - (params.since_hours ?? DEFAULT_SINCE_HOURS) * HOUR_MS).toISOString(),
    windowEnd: new Date(now + 1).toISOString(),
  };
  const logs = await ctx.store.incidents.logs(key, window, params.limit ?? DEFAULT_PAGE_LIMIT);
  if (logs.length === 0) throw notFound();
  const [deadLetters, breakdown, sample] = await Promise.all([
    ctx.store.incidents.deadLetterRecovery(key, window),
    ctx.store.incidents.breakdown(key, window),
    ctx.store.incidents.samplePayload(key, window),
  ]);
  const redrivable = deadLetters.total > deadLetters.redriven ? await ctx.store.incidents.unredrivenDeadLetterIds(key, window, MAX_REDRIVE_IDS) : [];
  return {
    logs: logs.map(toLogRecord),
    ...(deadLetters.total > 0 ? { dead_letters: { ...deadLetters, redrivable_ids: redrivable } } : {}),
    breakdown,
    ...(sample ? { sample_payload: { event_id: sample.event_id, event_name: sample.event_name, payload: parseJsonObject(sample.payload) ?? {} } } : {}),
  };
};
