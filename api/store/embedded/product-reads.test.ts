/**
 * One product's reviews and statistics on the embedded store are read from that
 * product's own lists and aggregates (CONTRACT §13: a per-product index, no scan of
 * the organization). Each review given to the index is a Proxy that counts every
 * property read, per product: after the index is built, pages (with every filter,
 * at any offset) and statistics of product A read no review of another product or of
 * the organization itself, and still answer exactly what the reference filter gives.
 */
import { describe, expect, it } from 'vitest';
import { ReviewIndex } from './review-index.ts';
import type { Review, ReviewQuery } from '../types.ts';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const DAY = 86_400_000;
const PLATFORMS = ['DIRECT', 'GOOGLE', 'TRUSTPILOT', 'FACEBOOK'];
const LANGUAGES = ['en', 'de', 'fr'];

function review(i: number, productId: string | null): Review {
  const platform = PLATFORMS[i % PLATFORMS.length]!;
  const date = new Date(NOW.getTime() - ((i * 7919) % 400) * DAY - (i % 1000) * 1000).toISOString();
  return {
    id: `rev_${i.toString(36).padStart(20, '0')}`,
    orgId: 'org_shop',
    platform,
    externalId: `e${i}`,
    authorName: `Person ${i}`,
    authorAvatar: null,
    rating: platform === 'FACEBOOK' && i % 3 === 0 ? null : 1 + ((i * 31) % 5),
    content: `Review ${i}`,
    date,
    url: null,
    language: LANGUAGES[i % LANGUAGES.length]!,
    isVerified: false,
    sentiment: i % 2 ? ((i * 13) % 100) / 100 : null,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
    createdAt: date,
    updatedAt: date,
    productId,
    reply: i % 4 === 0 ? { text: 'Thanks', date } : null,
  };
}

/** Newest first, then by id: the API's order. */
const newestFirst = (a: Review, b: Review): number => (a.date === b.date ? (a.id < b.id ? 1 : -1) : a.date < b.date ? 1 : -1);

describe('the embedded review index, one product', () => {
  it('pages and counts product A from its own lists: no review of another product, or of none, is read', () => {
    const plain: Review[] = [];
    for (let i = 0; i < 6_000; i++) plain.push(review(i, i % 150 === 0 ? 'mug-a' : i % 2 ? 'shoe-b' : null));
    const ofA = plain.filter((r) => r.productId === 'mug-a');
    expect(ofA.length).toBe(40);

    const reads = new Map<string, number>();
    const index = new ReviewIndex();
    for (const r of plain) {
      const target = { ...r, aiThemes: [...r.aiThemes] };
      const owner = r.productId ?? '(none)';
      index.apply(
        new Proxy(target, {
          get(t, prop, receiver) {
            reads.set(owner, (reads.get(owner) ?? 0) + 1);
            return Reflect.get(t, prop, receiver);
          },
        }),
      );
    }
    // Built: every list sorted (the start-up replay's flush). Reads from here on are the queries'.
    index.flushAll();
    reads.clear();

    const queries: Omit<ReviewQuery, 'orgId' | 'productId'>[] = [
      { limit: 20, offset: 0 },
      { limit: 20, offset: 20 },
      { limit: 10, offset: 35 },
      { platforms: ['DIRECT'], limit: 20, offset: 0 },
      { platforms: ['GOOGLE', 'FACEBOOK'], minRating: 3, limit: 5, offset: 2 },
      { maxRating: 2, language: 'de', limit: 20, offset: 0 },
      { since: new Date(NOW.getTime() - 200 * DAY), limit: 20, offset: 0 },
      { awaitingReply: true, limit: 20, offset: 0 },
    ];
    for (const q of queries) {
      const page = index.list({ orgId: 'org_shop', productId: 'mug-a', ...q });
      const expected = ofA
        .filter((r) => q.platforms === undefined || q.platforms.includes(r.platform))
        .filter((r) => q.minRating === undefined || (r.rating !== null && r.rating >= q.minRating))
        .filter((r) => q.maxRating === undefined || (r.rating !== null && r.rating <= q.maxRating))
        .filter((r) => q.language === undefined || r.language === q.language)
        .filter((r) => q.since === undefined || Date.parse(r.date) > q.since.getTime())
        .filter((r) => q.awaitingReply === undefined || (['GOOGLE', 'TRUSTPILOT', 'DIRECT'].includes(r.platform) && r.reply === null))
        .sort(newestFirst);
      expect(page.total, JSON.stringify(q)).toBe(expected.length);
      expect(page.items.map((r) => r.id), JSON.stringify(q)).toEqual(expected.slice(q.offset, q.offset + q.limit).map((r) => r.id));
    }

    const stats = index.stats({ orgId: 'org_shop', productId: 'mug-a', now: NOW });
    const rated = ofA.filter((r) => r.rating !== null);
    expect(stats.totalReviews).toBe(40);
    expect(stats.averageRating).toBe(Math.round((rated.reduce((s, r) => s + r.rating!, 0) / rated.length) * 100) / 100);
    expect(stats.last30Days).toBe(ofA.filter((r) => Date.parse(r.date) > NOW.getTime() - 30 * DAY).length);
    const direct = index.stats({ orgId: 'org_shop', productId: 'mug-a', platforms: ['DIRECT'], now: NOW });
    expect(direct.totalReviews).toBe(ofA.filter((r) => r.platform === 'DIRECT').length);

    expect(reads.get('mug-a') ?? 0, 'the product’s own reviews are read').toBeGreaterThan(0);
    expect(reads.get('shoe-b') ?? 0, 'reads of another product’s reviews').toBe(0);
    expect(reads.get('(none)') ?? 0, 'reads of the organization’s own reviews').toBe(0);
  });
});
