import { describe, expect, it } from 'vitest';
import { ReviewIndex } from '../store/embedded/review-index.ts';
import { generateFixture } from './fixtures.ts';
import { statsBody, statsBytes } from './routes.ts';

describe('the statistics body', () => {
  it('is exactly JSON.stringify({ data }) for any statistics, cached arrays or not', () => {
    const index = new ReviewIndex();
    const fixture = generateFixture({ sizes: [300, 0] });
    let n = 0;
    const [orgId, emptyOrg] = fixture.orgIds as [string, string];
    index.upsert(orgId, fixture.inputs(orgId), new Date('2026-01-01T00:00:00Z'), () => `rev_${String(n++).padStart(20, '0')}`);
    const clocks = ['2025-06-01T00:00:00Z', '2025-12-25T12:00:00.001Z', '2026-01-01T00:00:00Z'].map((t) => new Date(t));
    for (const now of clocks) {
      for (const platforms of [undefined, ['GOOGLE'], ['YELP', 'FACEBOOK'], []]) {
        for (const id of [orgId, emptyOrg]) {
          const stats = index.stats({ orgId: id, now, ...(platforms && { platforms }) });
          // Twice: the second call reuses the arrays' cached JSON with this call's windows.
          expect(statsBody(stats)).toBe(JSON.stringify({ data: stats }));
          expect(statsBody(stats)).toBe(JSON.stringify({ data: stats }));
          // The bytes, kept per version of the arrays: new bytes whenever a window's count (the clock) moves.
          expect(statsBytes(stats).toString('utf8')).toBe(JSON.stringify({ data: stats }));
          expect(statsBytes(stats).toString('utf8')).toBe(JSON.stringify({ data: stats }));
        }
      }
    }
    // A literal object (the MongoDB store's kind: fresh arrays, not frozen) with nulls and an unrated bucket.
    const literal = {
      totalReviews: 3,
      averageRating: null,
      averageSentiment: 0.5,
      last30Days: 0,
      last7Days: 0,
      platforms: [{ platform: 'YELP', count: 3, averageRating: null }],
      ratingDistribution: [5, 4, 3, 2, 1].map((rating) => ({ rating, count: 0 })).concat({ rating: null as unknown as number, count: 3 }),
    };
    expect(statsBody(literal)).toBe(JSON.stringify({ data: literal }));
    expect(statsBytes(literal).toString('utf8')).toBe(JSON.stringify({ data: literal }));
    // Not frozen, so not kept: a changed count shows.
    literal.last7Days = 2;
    expect(statsBytes(literal).toString('utf8')).toBe(JSON.stringify({ data: literal }));
  });
});
