import './Sparkline.css';
/** Occurrences over the look-back window as a tiny bar chart; the numbers are in the label. */
export function Sparkline({ values, label }: { values: number[]; label: string }) {
  if (values.length === 0) return <span className="muted">—</span>;
  const width = 96;
  const height = 22;
  const max = Math.max(1, ...values);
  const barWidth = width / values.length;
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <title>{label}</title>
      {values.map((v, i) =>
        v === 0 ? (
          <rect key={i} x={i * barWidth} y={height - 1} width={Math.max(1, barWidth - 1)} height={1} className="sparkline-zero" />
        ) : (
          <rect
            key={i}
            x={i * barWidth}
            y={height - Math.max(2, (v / max) * height)}
            width={Math.max(1, barWidth - 1)}
            height={Math.max(2, (v / max) * height)}
          />
        ),
      )}
    </svg>
  );
}

export function sparklineLabel(values: number[], windowHours: number): string {
  const total = values.reduce((a, b) => a + b, 0);
  const peak = Math.max(0, ...values);
  const bucketMinutes = Math.round((windowHours * 60) / Math.max(1, values.length));
  return `${total} occurrences in the last ${windowHours} h; peak ${peak} per ${bucketMinutes} min`;
}
