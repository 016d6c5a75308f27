/**
 * The event browser's URL format and how it maps onto event.list params. Relative ranges (`range=1h`)
 * stay relative in the URL and are anchored to "now" when the view loads or refreshes.
 */
import type { EventQuery } from '../../api/events';
import { parsePayloadFilter } from './payload-filter';

/** `payload` holds the bar's payload conditions as typed (payload-filter.ts reads them). */
export const FILTER_KEYS = ['event_name', 'payload', 'entity_id', 'run_id', 'subscriber_id', 'reason_code', 'event_id'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const RANGE_CHOICES = [
  { value: '', label: 'All time', ms: 0 },
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3600_000 },
  { value: '6h', label: 'Last 6 hours', ms: 6 * 3600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 3600_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600_000 },
  { value: 'custom', label: 'Custom range', ms: 0 },
] as const;

export type Mode = 'events' | 'dead-letters';

function validIso(value: string | null): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export function rangeOf(params: URLSearchParams): string {
  const range = params.get('range') ?? '';
  if (params.get('since') || params.get('until')) return 'custom';
  return RANGE_CHOICES.some((c) => c.value === range) ? range : '';
}

/** event.list params for the current URL; `anchor` is "now" for relative ranges. */
export function eventQueryFromUrl(params: URLSearchParams, mode: Mode, anchor: number): EventQuery {
  const filter: NonNullable<EventQuery['filter']> = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (!value) continue;
    // The name filter matches by prefix: "refund" finds refund.approved and refund.paid.
    if (key === 'event_name') filter.event_name_prefix = value;
    else if (key === 'payload') {
      // Text the bar cannot read is not sent: the bar says what is wrong with it.
      const parsed = parsePayloadFilter(value);
      if (parsed.ok && parsed.conditions.length > 0) filter.payload = parsed.conditions;
    } else filter[key] = value;
  }
  if (params.get('redriven') === '0') filter.dead_letter_redriven = false;
  else if (params.get('redriven') === '1') filter.dead_letter_redriven = true;
  if (mode === 'dead-letters') filter.has_dead_letter = true;
  else if (params.get('dead') === '1') filter.has_dead_letter = true;
  else if (params.get('dead') === '0') filter.has_dead_letter = false;

  const range = rangeOf(params);
  const query: EventQuery = {};
  if (Object.keys(filter).length) query.filter = filter;
  if (range === 'custom') {
    const since = validIso(params.get('since'));
    const until = validIso(params.get('until'));
    if (since) query.since = since;
    if (until) query.until = until;
  } else {
    const choice = RANGE_CHOICES.find((c) => c.value === range);
    if (choice && choice.ms > 0) query.since = new Date(anchor - choice.ms).toISOString();
  }
  return query;
}

/** `datetime-local` value (local time, minutes) for an ISO timestamp, and back. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
