import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesCounter, SeriesHistogram } from './series-metrics.ts';

/** The exposition's lines, sorted: label order within a line may differ, so each line's labels are sorted too. */
function normalized(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/\{([^}]*)\}/, (_all, labels: string) => `{${labels.split(',').sort().join(',')}}`))
    .sort();
}

describe('series metrics', () => {
  it("expose exactly what prom-client's Counter and Histogram expose for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const buckets = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
    const counter = new SeriesCounter({ name: 'c_total', help: 'A counter.', labelNames: ['route', 'status'] as const, registers: [ours] });
    const reference = new Counter({ name: 'c_total', help: 'A counter.', labelNames: ['route', 'status'] as const, registers: [theirs] });
    const histogram = new SeriesHistogram({ name: 'h_seconds', help: 'A histogram.', labelNames: ['route', 'status'] as const, buckets, registers: [ours] });
    const referenceHistogram = new Histogram({ name: 'h_seconds', help: 'A histogram.', labelNames: ['route', 'status'] as const, buckets, registers: [theirs] });
    let seed = 11;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const routes = ['/api/v1/reviews', '/widget/:file', 'unmatched'];
    // Values on the bounds themselves, beyond the last bound, and zero.
    const values = [0, 0.001, 0.0025, 2.5, 3, 10, ...Array.from({ length: 500 }, () => random() ** 4 * 3)];
    values.forEach((value, i) => {
      const labels = { route: routes[i % 3]!, status: i % 7 === 0 ? '404' : '200' };
      counter.inc(labels);
      reference.inc(labels);
      histogram.observe(labels, value);
      referenceHistogram.observe(labels, value);
    });
    const series = histogram.labels({ route: '/widget/:file', status: '200' });
    series.observe(0.003);
    referenceHistogram.observe({ route: '/widget/:file', status: '200' }, 0.003);
    expect(normalized(await ours.metrics())).toEqual(normalized(await theirs.metrics()));

    ours.resetMetrics();
    theirs.resetMetrics();
    expect(normalized(await ours.metrics())).toEqual(normalized(await theirs.metrics()));
    // A series kept by its user counts again after a reset, from zero.
    series.observe(0.2);
    referenceHistogram.observe({ route: '/widget/:file', status: '200' }, 0.2);
    expect(normalized(await ours.metrics())).toEqual(normalized(await theirs.metrics()));
  });
});
