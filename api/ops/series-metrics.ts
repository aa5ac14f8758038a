/**
 * A counter and a histogram for the request path, registered in a prom-client
 * Registry and exposed exactly as prom-client's own (same names, types, label
 * sets, cumulative buckets, _sum and _count). prom-client validates and hashes
 * the label object on every observation and finds a histogram bucket by a
 * number-keyed property (formatting the bound to a string each time): about a
 * microsecond per call, several calls per request. Here a series is looked up
 * once by its label values (or kept by the caller) and an observation is a few
 * array writes.
 */
import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string>;

/** What prom-client's Registry reads from a metric (its `get()` result). */
interface Exposed {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: { metricName?: string; labels: Record<string, string | number>; value: number }[];
}

interface Options<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

/** Label values in labelNames' order, joined: the series' key. */
function keyOf(labelNames: readonly string[], labels: Labels): string {
  let key = '';
  for (const name of labelNames) key += `${labels[name] ?? ''}\u0000`;
  return key;
}

function register(metric: object, registers: Registry[]): void {
  for (const registry of registers) registry.registerMetric(metric as unknown as Metric);
}

export class SeriesCounter<L extends string> {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly L[];
  private series = new Map<string, { labels: Labels; value: number }>();

  constructor(options: Options<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    register(this, options.registers);
  }

  inc(labels: Record<L, string>, by = 1): void {
    const key = keyOf(this.labelNames, labels);
    const found = this.series.get(key);
    if (found) found.value += by;
    else this.series.set(key, { labels: { ...labels }, value: by });
  }

  async get(): Promise<Exposed> {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [...this.series.values()].map(({ labels, value }) => ({ labels: { ...labels }, value })),
    };
  }

  reset(): void {
    this.series = new Map();
  }
}

/**
 * One label set's histogram: counts per bucket (not cumulative), sum and count.
 * A caller may keep it; after the histogram's reset() it starts from zero and
 * is exposed again from its next observation, as prom-client's series are.
 */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** False after a reset, until the next observation puts it back. */
  listed = true;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
    private readonly relist: (series: HistogramSeries) => void,
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]!++;
    this.sum += value;
    this.count++;
    if (!this.listed) this.relist(this);
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
    this.listed = false;
  }
}

export class SeriesHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly L[];
  private readonly bounds: readonly number[];
  private readonly series = new Map<string, HistogramSeries>();

  constructor(options: Options<L> & { buckets: readonly number[] }) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.bounds = [...options.buckets].sort((a, b) => a - b);
    register(this, options.registers);
  }

  /** The series of these label values, made on first use: keep it to observe without a lookup. */
  labels(labels: Record<L, string>): HistogramSeries {
    const key = keyOf(this.labelNames, labels);
    let found = this.series.get(key);
    if (!found) {
      found = new HistogramSeries({ ...labels }, this.bounds, (series) => {
        series.listed = true;
        this.series.set(key, series);
      });
      this.series.set(key, found);
    }
    return found;
  }

  observe(labels: Record<L, string>, value: number): void {
    this.labels(labels).observe(value);
  }

  async get(): Promise<Exposed> {
    const values: Exposed['values'] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...s.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const s of this.series.values()) s.clear();
    this.series.clear();
  }
}
