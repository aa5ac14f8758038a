import { describe, expect, it } from 'vitest';
import { httpsUrl, isWidgetData } from './guard.ts';
import { visibleReviews } from './select.ts';
import type { PublicReview } from './public-data.ts';

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
  const review = (id: string, language: string | null): PublicReview => ({
    id, platform: 'GOOGLE', rating: 5, content: 'text', authorName: id, authorAvatar: null, date: '2026-01-01T00:00:00Z', url: null, isVerified: false, language,
  });
  const all = [review('a', 'fr'), review('b', 'en'), review('c', 'fr'), review('d', null), review('e', 'fr')];

  it('all: every review; page: the visitor’s language when at least three are in it', () => {
    expect(visibleReviews(all, 'all', 'fr').map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(visibleReviews(all, 'page', 'fr').map((r) => r.id)).toEqual(['a', 'c', 'e']);
    // Only one English review: too few to leave the others out.
    expect(visibleReviews(all, 'page', 'en').map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(visibleReviews(all.slice(0, 3), 'page', 'fr').map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });
});
