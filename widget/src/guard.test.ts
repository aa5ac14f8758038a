import { describe, expect, it } from 'vitest';
import { httpsUrl, isWidgetData } from './guard.ts';
import { visibleReviews } from './select.ts';
import type { PublicReview, PublicWidgetOptions } from './public-data.ts';

describe('httpsUrl', () => {
  it('keeps https URLs only', () => {
    expect(httpsUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>', 'http://example.com', '//example.com', '/relative', '', null, 42, {}, 'https://']) {
      expect(httpsUrl(bad), String(bad)).toBeNull();
    }
  });
});

describe('isWidgetData', () => {
  it('accepts the overall shape and refuses anything else', () => {
    expect(isWidgetData({ id: 'w', options: {}, summary: {}, reviews: [] })).toBe(true);
    for (const bad of [null, 'x', [], { id: 1, options: {}, summary: {}, reviews: [] }, { id: 'w', options: null, summary: {}, reviews: [] }, { id: 'w', options: {}, summary: {}, reviews: {} }]) {
      expect(isWidgetData(bad)).toBe(false);
    }
  });
});

describe('visibleReviews', () => {
  const review = (id: string, platform: string, rating: number | null, content = 'text'): PublicReview => ({
    id, platform, rating, content, authorName: id, authorAvatar: null, date: '2026-01-01T00:00:00Z', url: null, isVerified: false,
  });
  const options: PublicWidgetOptions = { theme: 'light', accentColor: '#000', maxReviews: 10, minRating: null, platforms: null, hideEmpty: false, showDates: true, locale: null };
  const all = [review('a', 'GOOGLE', 5), review('b', 'YELP', 2), review('c', 'FACEBOOK', null), review('d', 'GOOGLE', 4, '  ')];

  it('applies platforms, minimum stars (unrated excluded), hide empty, and the maximum', () => {
    expect(visibleReviews(all, options).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(visibleReviews(all, { ...options, platforms: ['GOOGLE'] }).map((r) => r.id)).toEqual(['a', 'd']);
    expect(visibleReviews(all, { ...options, minRating: 4 }).map((r) => r.id)).toEqual(['a', 'd']);
    expect(visibleReviews(all, { ...options, hideEmpty: true }).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(visibleReviews(all, { ...options, maxReviews: 2 }).map((r) => r.id)).toEqual(['a', 'b']);
  });
});
