import { describe, it, expect } from 'vitest';
import { demoRecords, demoReviews } from './demo-reviews.ts';
import { enrich } from '../intelligence/enrich.ts';
import { THEMES } from '../intelligence/taxonomy.ts';
import { validateRecord } from '../reviews/import/validate-record.ts';
import { ReviewIndex } from '../store/embedded/review-index.ts';

const now = new Date('2026-11-21T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const reviews = demoReviews(now);

describe('demoReviews', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    expect(demoReviews(now)).toEqual(reviews);
    expect(demoReviews(now, 'en', 1)).toEqual(reviews);
    expect(demoReviews(now, 'en', 2)).not.toEqual(reviews);
    const later = demoReviews(new Date(now.getTime() + DAY));
    expect(later.map((r) => Date.parse(r.date) - DAY)).toEqual(reviews.map((r) => Date.parse(r.date)));
  });

  it('passes import validation unchanged (naming no product, answered by no reply)', () => {
    for (const record of demoRecords(now)) expect(validateRecord(record)).toEqual({ ok: true, value: { ...record, productId: null, reply: null } });
  });

  it('carries no hand-written AI fields: each is what the import enrichment computes from the text (issue 28, item 7)', () => {
    for (const r of reviews) {
      const computed = enrich({ content: r.content, language: r.language, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] }, 'en');
      expect({ sentiment: r.sentiment, sentimentLabel: r.sentimentLabel, aiSummary: r.aiSummary, aiThemes: r.aiThemes }).toEqual({
        sentiment: computed.sentiment,
        sentimentLabel: computed.sentimentLabel,
        aiSummary: computed.aiSummary,
        aiThemes: computed.aiThemes,
      });
      for (const theme of r.aiThemes) expect(THEMES).toContain(theme);
      // A summary is the reviewer's own words, never a rewrite ("Praises coffee and staff.").
      if (r.aiSummary !== null) expect(r.content).toContain(r.aiSummary.replace(/…$/, ''));
    }
    // No long review goes without a sentiment.
    expect(reviews.filter((r) => r.content.length > 80 && r.sentiment === null)).toEqual([]);
  });

  it('has about 300 reviews, unique per platform, over the last two years, more of them recent', () => {
    expect(reviews.length).toBeGreaterThanOrEqual(250);
    expect(reviews.length).toBeLessThanOrEqual(350);
    expect(new Set(reviews.map((r) => `${r.platform}:${r.externalId}`)).size).toBe(reviews.length);
    const ages = reviews.map((r) => now.getTime() - Date.parse(r.date));
    expect(Math.min(...ages)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...ages)).toBeLessThanOrEqual(731 * DAY);
    expect(ages.filter((a) => a <= 7 * DAY).length).toBeGreaterThanOrEqual(3);
    expect(ages.filter((a) => a <= 30 * DAY).length).toBeGreaterThan(ages.filter((a) => a > 700 * DAY).length);
  });

  it('covers the six platforms, several languages, unrated Facebook recommendations, mostly 4-5 stars', () => {
    const count = (f: (r: (typeof reviews)[number]) => boolean) => reviews.filter(f).length;
    for (const p of ['GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK']) expect(count((r) => r.platform === p)).toBeGreaterThan(10);
    for (const lang of ['es', 'fr', 'de']) expect(count((r) => r.language === lang)).toBeGreaterThan(0);
    expect(count((r) => r.language === 'en')).toBeGreaterThan(reviews.length / 2);
    expect(count((r) => r.rating === null && r.platform === 'FACEBOOK')).toBeGreaterThan(5);
    expect(count((r) => r.rating === null && r.platform !== 'FACEBOOK')).toBe(0);
    const rated = reviews.filter((r) => r.rating !== null);
    expect(rated.filter((r) => r.rating! >= 4).length / rated.length).toBeGreaterThan(0.65);
    expect(new Set(rated.map((r) => r.rating)).size).toBe(5);
  });

  it('has believable AI fields, varied lengths and https links', () => {
    const rated = (f: (rating: number) => boolean) => reviews.filter((r) => r.rating !== null && f(r.rating) && r.sentimentLabel !== null);
    // Computed, so not always right, but mostly in line with the stars.
    const good = rated((n) => n >= 4);
    expect(good.filter((r) => r.sentimentLabel === 'POSITIVE').length / good.length).toBeGreaterThan(0.7);
    const poor = rated((n) => n <= 2);
    expect(poor.filter((r) => r.sentimentLabel !== 'POSITIVE').length / poor.length).toBeGreaterThan(0.5);
    for (const r of reviews) {
      if (r.sentiment === null) expect(r.sentimentLabel).toBeNull();
      expect(r.url).toMatch(/^https:\/\//);
      if (r.authorAvatar !== null) expect(r.authorAvatar).toMatch(/^https:\/\//);
    }
    expect(reviews.filter((r) => r.sentiment !== null).length).toBeGreaterThan(reviews.length / 2);
    expect(reviews.filter((r) => r.aiThemes.length > 0 && r.aiSummary !== null).length).toBeGreaterThan(50);
    const lengths = reviews.map((r) => r.content.length);
    expect(lengths.filter((l) => l === 0).length).toBeGreaterThan(0);
    expect(lengths.filter((l) => l > 0 && l < 80).length).toBeGreaterThan(10);
    expect(lengths.filter((l) => l > 250).length).toBeGreaterThan(10);
  });

  it('makes believable statistics', () => {
    const index = new ReviewIndex();
    let n = 0;
    index.upsert('org_demo', reviews, now, () => `rev_${String(++n).padStart(20, '0')}`);
    const stats = index.stats({ orgId: 'org_demo', now });
    expect(stats.totalReviews).toBe(reviews.length);
    expect(stats.averageRating).toBeGreaterThanOrEqual(4);
    expect(stats.averageRating).toBeLessThanOrEqual(4.7);
    expect(stats.platforms).toHaveLength(6);
    expect(stats.ratingDistribution.at(-1)?.rating).toBeNull();
  });
});
