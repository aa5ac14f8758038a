import { describe, expect, it } from 'vitest';
import { WIDGET_LAYOUTS } from '../../api/store/types.ts';
import { BADGE_H, CARD_GAP, CARD_H, FRAME_Y, HEADER_GAP, HEADER_H, LIST_ROW_H, clampMaxReviews, layoutHeight, layoutRows } from './layout-height.ts';

const CHROME = FRAME_Y + HEADER_H + HEADER_GAP;

describe('layoutHeight', () => {
  it('is fixed for the carousel and the badge, whatever the review count', () => {
    for (const maxReviews of [1, 5, 50]) {
      expect(layoutHeight('carousel', { maxReviews })).toBe(CHROME + CARD_H);
      expect(layoutHeight('badge', { maxReviews })).toBe(BADGE_H);
    }
  });

  it('grows the grid by rows of three, up to three rows (more reviews page)', () => {
    expect(layoutRows('grid', { maxReviews: 1 })).toBe(1);
    expect(layoutRows('grid', { maxReviews: 3 })).toBe(1);
    expect(layoutRows('grid', { maxReviews: 4 })).toBe(2);
    expect(layoutRows('grid', { maxReviews: 9 })).toBe(3);
    expect(layoutRows('grid', { maxReviews: 50 })).toBe(3);
    expect(layoutHeight('grid', { maxReviews: 6 })).toBe(CHROME + 2 * CARD_H + CARD_GAP);
  });

  it('grows the list by rows, up to four', () => {
    expect(layoutHeight('list', { maxReviews: 2 })).toBe(CHROME + 2 * LIST_ROW_H);
    expect(layoutHeight('list', { maxReviews: 40 })).toBe(CHROME + 4 * LIST_ROW_H);
  });

  it('is a positive integer for every layout and any maxReviews, hostile ones included', () => {
    for (const layout of WIDGET_LAYOUTS) {
      for (const maxReviews of [-5, 0, 0.5, 1, 7.9, 1e9, Number.NaN, Number.POSITIVE_INFINITY]) {
        const h = layoutHeight(layout, { maxReviews });
        expect(Number.isInteger(h) && h > 0, `${layout} ${maxReviews}`).toBe(true);
      }
    }
  });

  it('clamps maxReviews to 1-50', () => {
    expect([clampMaxReviews(0), clampMaxReviews(51), clampMaxReviews('9'), clampMaxReviews(7.9)]).toEqual([1, 50, 10, 7]);
  });
});
