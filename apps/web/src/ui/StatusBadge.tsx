/** A coloured word for a level or status. Colour is never the only signal: the word is always shown. */
const TONE: Record<string, 'bad' | 'warn' | 'ok' | 'info' | 'neutral'> = {
  fatal: 'bad',
  error: 'bad',
  failed: 'bad',
  warn: 'warn',
  pending: 'warn',
  in_progress: 'info',
  running: 'info',
  queued: 'warn',
  info: 'info',
  debug: 'neutral',
  delivered: 'ok',
  completed: 'ok',
  cancelled: 'neutral',
};

export function StatusBadge({ value, tone }: { value: string; tone?: 'bad' | 'warn' | 'ok' | 'info' | 'neutral' }) {
  return <span className={`badge badge-${tone ?? TONE[value] ?? 'neutral'}`}>{value.replace(/_/g, ' ')}</span>;
}
