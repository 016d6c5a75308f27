/**
 * Counters and histograms for the paths every call takes, exposed through a prom-client Registry.
 * prom-client's own inc() and observe() validate and hash their label object on every call; a
 * profile of health.ping at 64 connections had that as most of what metrics cost per request. Here
 * a series is found once by its label values and kept; counting is a number increment and the
 * formatting waits for a scrape. The exposition is prom-client's (the registry formats `get()`).
 */
import type { Metric, Registry } from 'prom-client';

interface SeriesOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** One counter series: keep it and call inc(). */
export interface CounterSeries {
  inc(n?: number): void;
}

/** One histogram series: keep it and call observe(). */
export interface HistogramSeries {
  observe(value: number): void;
}

abstract class LabelledSeries<S> {
  protected readonly series = new Map<string, { labels: Record<string, string>; state: S }>();
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';

  constructor(
    registry: Registry,
    private readonly options: SeriesOptions,
  ) {
    // The registry asks only for name, help, type and get(): see prom-client's getMetricsAsString.
    registry.registerMetric(this as unknown as Metric);
  }

  get name(): string {
    return this.options.name;
  }

  get help(): string {
    return this.options.help;
  }

  protected find(values: readonly string[], fresh: () => S): S {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      const labels = Object.fromEntries(this.options.labelNames.map((label, i) => [label, values[i]!]));
      entry = { labels, state: fresh() };
      this.series.set(key, entry);
    }
    return entry.state;
  }

  protected abstract values(): MetricValue[];

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }

  reset(): void {
    this.series.clear();
  }
}

class CounterState implements CounterSeries {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

class HistogramState implements HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]! += 1;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

export class HotCounter extends LabelledSeries<CounterState> {
  readonly type = 'counter';

  /** The series of these label values, in labelNames order. */
  of(...labelValues: string[]): CounterSeries {
    return this.find(labelValues, () => new CounterState());
  }

  protected values(): MetricValue[] {
    return [...this.series.values()].map(({ labels, state }) => ({ labels, value: state.value }));
  }
}

export class HotHistogram extends LabelledSeries<HistogramState> {
  readonly type = 'histogram';
  private readonly bounds: number[];

  constructor(registry: Registry, options: SeriesOptions & { buckets: readonly number[] }) {
    super(registry, options);
    this.bounds = [...options.buckets].sort((a, b) => a - b);
  }

  /** The series of these label values, in labelNames order. */
  of(...labelValues: string[]): HistogramSeries {
    return this.find(labelValues, () => new HistogramState(this.bounds));
  }

  protected values(): MetricValue[] {
    const out: MetricValue[] = [];
    for (const { labels, state } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += state.counts[i]!;
        out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: state.count });
      out.push({ metricName: `${this.name}_sum`, labels, value: state.sum });
      out.push({ metricName: `${this.name}_count`, labels, value: state.count });
    }
    return out;
  }
}
