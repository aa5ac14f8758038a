/**
 * The dashboard's one responsive table. Where its columns fit, a table; where
 * they no longer fit (the table would be wider than its box), each row is a
 * card: its title and badge on top, every other value under its column's
 * name, its actions on a wrapping row at the bottom. Nothing is ever hidden
 * behind a sideways scroll. The switch is measured, not guessed: a table of
 * seven columns turns into cards at a wider width than one of four.
 *
 * The explicit roles keep it a table for assistive technology when rows are
 * drawn as cards (display: grid drops a table's semantics in some browsers);
 * the card labels (CSS generated from `data-label`, with empty alternative text) are
 * hidden from it and are no part of a cell's text: the column headers name the cells.
 * styles.css, "Tables": `.table-wrap[data-cards]`.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

export interface Column<Row> {
  /** The column's header, and the label over its value where rows are cards. */
  name: string;
  /**
   * Where the value sits in a card: `title` (first line, no label), `badge`
   * (top right, no label), `wide` (a line of its own), `actions` (the last
   * line, buttons wrapping; its header is read by screen readers only).
   * Otherwise, a labelled value in a two-column grid.
   */
  card?: 'title' | 'badge' | 'wide' | 'actions';
  cell: (row: Row) => ComponentChildren;
  /** Classes of the column's cells (`mono`, `nowrap`, `strong`…). */
  class?: string;
  /** Other attributes of a cell (an id that a button's aria-describedby names, a title). */
  cellProps?: (row: Row) => Omit<JSX.HTMLAttributes<HTMLTableCellElement>, 'class' | 'role'>;
}

/** Rows are cards once the table needs more than its box's width (the 1 px absorbs sub-pixel rounding). */
function fitTo(wrap: HTMLElement): void {
  const table = wrap.querySelector('table');
  if (!table) return;
  wrap.removeAttribute('data-cards');
  if (table.offsetWidth > wrap.clientWidth + 1) wrap.setAttribute('data-cards', '');
}

export function DataTable<Row>(props: {
  /** The region's name ("API keys"): the box is a focusable region for keyboard and screen-reader users. */
  label: string;
  /** `false` for a column that this person does not get (the actions of a Member, say). */
  columns: (Column<Row> | false)[];
  rows: Row[];
  rowKey: (row: Row) => string;
  /** A class of the table, for a page's own touches. */
  class?: string;
}) {
  const wrap = useRef<HTMLDivElement>(null);
  const columns = props.columns.filter((c): c is Column<Row> => c !== false);
  const hasBadge = columns.some((c) => c.card === 'badge');
  // Measured before the first paint, and again when the box's width changes (the window, the navigation).
  useLayoutEffect(() => {
    const el = wrap.current;
    if (!el) return;
    fitTo(el);
    let width = el.clientWidth;
    let frame = 0;
    const observer = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      // Next frame: switching changes the box's height, which would notify this observer again within this one.
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => fitTo(el));
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  });
  const cellClass = (c: Column<Row>): string => {
    const place = c.card === 'title' ? (hasBadge ? 'c-title' : 'c-title c-span') : c.card === 'badge' ? 'c-badge' : c.card === 'wide' ? 'c-span' : c.card === 'actions' ? 'actions c-actions' : '';
    return [c.class, place].filter(Boolean).join(' ');
  };
  return (
    <div ref={wrap} class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      <table class={`table data-table${props.class ? ` ${props.class}` : ''}`} role="table">
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((c) => (
              <th key={c.name} scope="col" role="columnheader">
                {c.card === 'actions' ? <span class="sr-only">{c.name}</span> : c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} role="row">
              {columns.map((c) => (
                <td key={c.name} role="cell" class={cellClass(c) || undefined} data-label={!c.card || c.card === 'wide' ? c.name : undefined} {...c.cellProps?.(row)}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
