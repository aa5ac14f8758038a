/**
 * One Overview chart as a figure: heading, summary sentence, HTML legend, the
 * canvas (drawn by the lazily loaded draw-chart.ts), and the same numbers as a
 * table in a disclosure. The canvas is an image labelled by the heading and
 * described by the sentence; the table holds the exact figures.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { TableWrap } from '../../components/page.tsx';
import type { ChartSpec } from './draw-chart.ts';

export interface TableData {
  head: string[];
  rows: (string | number)[][];
}

function Legend(props: { series: ChartSpec['series']; kind: ChartSpec['kind'] }) {
  return (
    <ul class="chart-legend" aria-label="Legend">
      {props.series.map((s) => (
        <li key={s.label}>
          <svg width="28" height="12" viewBox="0 0 28 12" aria-hidden="true" focusable="false">
            {props.kind === 'bars' ? (
              <rect x="6" y="1" width="16" height="10" fill={s.color} />
            ) : (
              <>
                <line x1="1" y1="6" x2="27" y2="6" stroke={s.color} stroke-width="2" stroke-dasharray={s.dash.join(' ') || undefined} />
                <circle cx="14" cy="6" r="3" fill="#ffffff" stroke={s.color} stroke-width="2" />
              </>
            )}
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  );
}

export function ChartFigure(props: { id: string; title: string; summary: string; spec: ChartSpec; table: TableData; note?: ComponentChildren }) {
  const host = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let destroy: (() => void) | null = null;
    let live = true;
    import('./draw-chart.ts').then(
      (m) => {
        if (live && host.current) destroy = m.drawChart(host.current, props.spec);
      },
      () => setFailed(true),
    );
    return () => {
      live = false;
      destroy?.();
    };
  }, [props.spec]);
  const { id } = props;
  return (
    <figure class="card chart" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{props.title}</h2>
      <p class="chart-summary" id={`${id}-summary`}>
        {props.summary}
      </p>
      {props.spec.series.length > 1 && <Legend series={props.spec.series} kind={props.spec.kind} />}
      {failed ? (
        <p class="hint">The chart could not be drawn; the table below has the same figures.</p>
      ) : (
        <div class="chart-canvas" ref={host} role="img" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`} data-chart={id} />
      )}
      {props.note && <p class="hint">{props.note}</p>}
      <details class="chart-data">
        <summary>Show the figures as a table</summary>
        <TableWrap label={`${props.title}: figures`}>
          <table class="table">
            <caption class="sr-only">{props.title}</caption>
            <thead>
              <tr>
                {props.table.head.map((h, i) => (
                  <th key={h} scope="col" class={i > 0 ? 'num' : undefined}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {props.table.rows.map((row) => (
                <tr key={String(row[0])}>
                  {row.map((cell, i) =>
                    i === 0 ? (
                      <th key={i} scope="row">
                        {cell}
                      </th>
                    ) : (
                      <td key={i} class="num">
                        {cell}
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  );
}
