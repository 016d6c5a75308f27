/** "3 min ago", with the exact time (local and UTC) on hover. */
import { useNow } from './use-now';

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const exactFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

export function formatRelative(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  // The shared clock ticks every 15 s and server clocks drift, so a fresh record can look up to a
  // tick "in the future"; that is "just now", not "in 9 sec.".
  if (seconds > -5 && seconds <= RELATIVE_TIME_PERIOD_MS / 1000 + 5) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return rtf.format(Math.trunc(seconds / size), unit);
  }
  return iso;
}

export function formatExact(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${exactFormat.format(d)} (${d.toISOString()})`;
}

/** Relative time that follows the shared clock. */
export function RelativeTime({ iso }: { iso: string }) {
  const now = useNow(RELATIVE_TIME_PERIOD_MS);
  return <RelativeTimeAt iso={iso} now={now} />;
}

export const RELATIVE_TIME_PERIOD_MS = 15_000;

/** For long lists: the parent reads the clock once and passes `now`, so rows need no subscription each. */
export function RelativeTimeAt({ iso, now }: { iso: string; now: number }) {
  return (
    <time dateTime={iso} title={formatExact(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}
