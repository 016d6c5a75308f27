/** How the console names and colours incident states, and which states a filter choice shows. */
import type { Incident, ParamsInput } from '@switchboard/contract';

export type StateFilter = NonNullable<ParamsInput<'runtime.incidents'>['states']>[number];
export type SortChoice = NonNullable<ParamsInput<'runtime.incidents'>['sort']>;

/** The first is the default: what still needs someone (acknowledged is being worked on, not done). */
export const STATE_CHOICES: { value: string; label: string; states?: StateFilter[] }[] = [
  { value: 'active', label: 'Open and acknowledged', states: ['open', 'acknowledged'] },
  { value: 'open', label: 'Open (and regressed)', states: ['open'] },
  { value: 'regressed', label: 'Regressed', states: ['regressed'] },
  { value: 'acknowledged', label: 'Acknowledged', states: ['acknowledged'] },
  { value: 'resolved', label: 'Resolved', states: ['resolved'] },
  { value: 'ignored', label: 'Ignored', states: ['ignored'] },
  { value: 'all', label: 'All states' },
];

export const SORT_CHOICES: { value: SortChoice; label: string }[] = [
  { value: 'severity', label: 'Severity, then last seen' },
  { value: 'last_seen', label: 'Last seen' },
  { value: 'count', label: 'Count' },
  { value: 'first_seen', label: 'First seen' },
  { value: 'trend', label: 'Trend (last hour against the window)' },
];

export function stateChoice(value: string | null): (typeof STATE_CHOICES)[number] {
  return STATE_CHOICES.find((c) => c.value === value) ?? STATE_CHOICES[0]!;
}

export function sortChoice(value: string | null): SortChoice {
  return SORT_CHOICES.find((c) => c.value === value)?.value ?? 'severity';
}

/** The word shown for an incident's state: regressed is its own word, though its state is open. */
export function stateLabel(i: Pick<Incident, 'state' | 'regressed'>): string {
  return i.regressed ? 'regressed' : (i.state ?? 'open');
}

export function stateTone(i: Pick<Incident, 'state' | 'regressed'>): 'bad' | 'warn' | 'ok' | 'info' | 'neutral' {
  if (i.regressed) return 'bad';
  switch (i.state) {
    case 'acknowledged':
      return 'info';
    case 'resolved':
      return 'ok';
    case 'ignored':
      return 'neutral';
    default:
      return 'warn';
  }
}

/** "rising" / "falling" words for a trend ratio, so colour is not the only signal. */
export function trendLabel(trend: number | undefined): string {
  if (trend === undefined) return '—';
  if (trend >= 1.5) return `rising ×${trend.toFixed(1)}`;
  if (trend <= 0.5) return trend === 0 ? 'quiet this hour' : `falling ×${trend.toFixed(1)}`;
  return `steady ×${trend.toFixed(1)}`;
}

/** What tells two incidents of one component and code apart: a dead letter's subscriber and reason. */
export function causeLabel(i: Pick<Incident, 'subscriber_id' | 'reason_code'>): string | undefined {
  if (!i.subscriber_id && !i.reason_code) return undefined;
  return [i.subscriber_id, i.reason_code].filter(Boolean).join(' · ');
}
