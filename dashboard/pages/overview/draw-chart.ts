/**
 * Draws one Overview chart with uPlot (MIT, canvas). Loaded by a dynamic
 * import from the Overview page only, so esbuild puts uPlot in a chunk of its
 * own that no other page downloads (dashboard/build.ts reports its weight).
 *
 * The canvas is decoration for sighted readers: every chart's figure carries
 * its text alternative (a summary sentence and a data table) in the page's
 * own markup, and the legend is HTML with the series' names.
 */
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** Canvas dash pattern; [] = solid. */
  dash: number[];
}

export interface ChartSpec {
  kind: 'bars' | 'lines';
  /** One label per x position. */
  labels: string[];
  series: ChartSeries[];
  /** Fixed y range (ratings); absent = from 0 to the data's maximum. */
  yRange?: [number, number];
  formatY: (n: number) => string;
  height: number;
}

const AXIS = '#374151';
const GRID = '#e5e7eb';
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** Whole-number steps for count axes (uPlot's defaults include fractions). */
const INTEGER_STEPS = [1, 2, 5].flatMap((m) => Array.from({ length: 10 }, (_, e) => m * 10 ** e)).sort((a, b) => a - b);

function options(spec: ChartSpec, width: number): uPlot.Options {
  const n = spec.labels.length;
  const bars = spec.kind === 'bars' ? uPlot.paths.bars!({ size: [0.6, 56] }) : undefined;
  return {
    width,
    height: spec.height,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    padding: [12, 8, 0, 0],
    scales: {
      x: { time: false, range: [-0.5, n - 0.5] },
      y: { range: spec.yRange ? () => spec.yRange! : (_u, _min, max) => [0, Math.max(1, Math.ceil((max ?? 0) * 1.1))] },
    },
    axes: [
      {
        stroke: AXIS,
        font: FONT,
        grid: { show: false },
        ticks: { show: false },
        size: 30,
        // One label per position when they fit, else every 2nd, 3rd… (month labels need more room than star labels).
        space: spec.kind === 'bars' ? 28 : 60,
        incrs: [1, 2, 3, 4, 6, 12],
        values: (_u, splits) => splits.map((i) => spec.labels[i] ?? ''),
      },
      {
        stroke: AXIS,
        font: FONT,
        size: 48,
        grid: { stroke: GRID, width: 1 },
        ticks: { show: false },
        incrs: spec.yRange ? [1] : INTEGER_STEPS,
        values: (_u, splits) => splits.map((v) => spec.formatY(v)),
      },
    ],
    series: [
      {},
      ...spec.series.map((s): uPlot.Series => ({
        label: s.label,
        stroke: s.color,
        width: 2,
        dash: s.dash,
        ...(bars ? { paths: bars, fill: s.color, points: { show: false } } : { spanGaps: false, points: { show: true, size: 7, width: 2, fill: '#ffffff', stroke: s.color } }),
      })),
    ],
  };
}

/** Draws into `host`, resizing with it; returns the function that removes the chart. */
export function drawChart(host: HTMLElement, spec: ChartSpec): () => void {
  const xs = spec.labels.map((_, i) => i);
  const data: uPlot.AlignedData = [xs, ...spec.series.map((s) => s.values)];
  const width = () => Math.max(240, Math.floor(host.clientWidth));
  const chart = new uPlot(options(spec, width()), data, host);
  const resize = new ResizeObserver(() => {
    if (Math.abs(chart.width - width()) > 1) chart.setSize({ width: width(), height: spec.height });
  });
  resize.observe(host);
  return () => {
    resize.disconnect();
    chart.destroy();
  };
}
