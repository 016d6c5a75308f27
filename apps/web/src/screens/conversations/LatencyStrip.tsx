/**
 * Latency of every turn as one bar each, in order; failed parses in the error colour. Clicking a
 * bar scrolls the transcript to that turn. The numbers are in the label for screen readers.
 */
import type { Turn } from '@switchboard/contract';
import './LatencyStrip.css';

export function latencySummary(turns: Turn[]): string {
  if (turns.length === 0) return 'No turns';
  const sorted = turns.map((t) => t.latency_ms).sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const slowest = turns.reduce((a, b) => (b.latency_ms > a.latency_ms ? b : a));
  const failed = turns.filter((t) => !t.parse_ok).length;
  return `${turns.length} turns; median ${median} ms; slowest ${slowest.latency_ms} ms (turn ${slowest.turn_index}); ${failed} failed`;
}

export function LatencyStrip({ turns, onPick, highlighted }: { turns: Turn[]; onPick: (index: number) => void; highlighted?: number }) {
  if (turns.length === 0) return null;
  const height = 40;
  const max = Math.max(1, ...turns.map((t) => t.latency_ms));
  const label = `Latency per turn: ${latencySummary(turns)}`;
  return (
    <div className="latency-strip" data-testid="latency-strip">
      <div className="latency-legend small muted">
        <span>Latency per turn</span>
        <span>{latencySummary(turns)}</span>
      </div>
      <svg
        viewBox={`0 0 ${turns.length} ${height}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={label}
        onClick={(e) => {
          const box = e.currentTarget.getBoundingClientRect();
          const i = Math.floor(((e.clientX - box.left) / box.width) * turns.length);
          if (i >= 0 && i < turns.length) onPick(i);
        }}
      >
        <title>{label}</title>
        {turns.map((t, i) => {
          const h = Math.max(1.5, (t.latency_ms / max) * height);
          return (
            <rect
              key={t.turn_id}
              x={i + 0.1}
              y={height - h}
              width={0.8}
              height={h}
              className={`${t.parse_ok ? 'bar-ok' : 'bar-failed'}${highlighted === i ? ' bar-current' : ''}`}
            />
          );
        })}
      </svg>
    </div>
  );
}
