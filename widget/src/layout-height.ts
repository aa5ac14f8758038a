/**
 * The height a widget occupies, from its layout and options alone, so the
 * snippet can reserve it before anything loads (no layout shift). The
 * stylesheet is generated from the same constants and the root element is
 * given exactly this height, so what renders cannot differ from what was
 * reserved, whatever the container width or the number of reviews.
 */
import type { WidgetLayout } from '../../api/store/types.ts';

/** Border (1px) plus padding (16px), top and bottom, of the framed layouts. */
export const FRAME_Y = 34;
/** The heading row: title, summary line and the navigation buttons. */
export const HEADER_H = 48;
/** Space between the heading row and the reviews. */
export const HEADER_GAP = 16;
/** One review card in the carousel and the grid. */
export const CARD_H = 216;
/** Gap between cards. */
export const CARD_GAP = 16;
/** One row of the list layout, its divider included. */
export const LIST_ROW_H = 140;
/** The whole badge, border included. */
export const BADGE_H = 88;
/** Widest grid: at this many columns every review of a page is visible at once. */
export const GRID_COLUMNS_MAX = 3;
/** Rows a grid page may have; more reviews page instead of growing. */
export const GRID_ROWS_MAX = 3;
/** Rows a list page may have. */
export const LIST_ROWS_MAX = 4;

/** Reviews a widget may show, as the store allows it (1-50); anything else is clamped. */
export function clampMaxReviews(value: unknown): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.floor(value) : 10;
  return Math.min(50, Math.max(1, n));
}

/** Rows of reviews a page of this layout shows. */
export function layoutRows(layout: WidgetLayout, options: { maxReviews: number }): number {
  const max = clampMaxReviews(options.maxReviews);
  switch (layout) {
    case 'grid':
      return Math.min(GRID_ROWS_MAX, Math.ceil(max / GRID_COLUMNS_MAX));
    case 'list':
      return Math.min(LIST_ROWS_MAX, max);
    case 'carousel':
      return 1;
    case 'badge':
      return 0;
  }
}

/** Pixel height of the widget, deterministic from layout and options. */
export function layoutHeight(layout: WidgetLayout, options: { maxReviews: number }): number {
  return rowsHeight(layout, layoutRows(layout, options));
}

/** Pixel height of a layout showing `rows` rows of reviews. */
export function rowsHeight(layout: WidgetLayout, rows: number): number {
  const chrome = FRAME_Y + HEADER_H + HEADER_GAP;
  switch (layout) {
    case 'carousel':
      return chrome + CARD_H;
    case 'grid':
      return chrome + rows * CARD_H + (rows - 1) * CARD_GAP;
    case 'list':
      return chrome + rows * LIST_ROW_H;
    case 'badge':
      return BADGE_H;
  }
}
