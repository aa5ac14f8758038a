import { describe, it, expect } from 'vitest';
import { Aggregator, Query } from 'mingo';
import { fromDocument, listFilter, listSort, rawStats, rawStatsOf, reviewIndexes, reviewKey, statsQueries, toDocument, type PlatformRatingCount, type ReviewDocument, type SentimentSum, type StatsDocument } from './review-queries.ts';
import { ReviewIndex } from '../embedded/review-index.ts';
import { finishStats, type RawStats } from '../../reviews/stats-math.ts';
import { FIXTURE_EXTRA_PLATFORM, FIXTURE_PRODUCT_IDS, generateFixture, referenceList, referenceStats } from '../../reviews/fixtures.ts';
import type { Review, ReviewQuery, StatsQuery } from '../types.ts';

const fixture = generateFixture({ sizes: [1500, 400, 40] });
const docs = fixture.reviews.map(toDocument);
const index = new ReviewIndex();
for (const r of fixture.reviews) index.apply({ ...r, aiThemes: [...r.aiThemes] });
const DAY = 24 * 60 * 60 * 1000;

/** What the MongoDB store does for GET /reviews, run by mingo. */
function mongoList(q: ReviewQuery): { total: number; items: Review[] } {
  const filter = listFilter(q);
  const total = new Query(filter as Record<string, unknown>, {}).find<ReviewDocument>(docs).all().length;
  const items = new Query(filter as Record<string, unknown>, {})
    .find<ReviewDocument>(docs)
    .sort(listSort)
    .skip(q.offset)
    .limit(q.limit)
    .all()
    .map(fromDocument);
  return { total, items };
}

/** What the MongoDB store does for GET /reviews/stats, run by mingo. */
function mongoStats(q: StatsQuery): { raw: RawStats; stats: ReturnType<typeof finishStats> } {
  const s = statsQueries(q);
  const rows = new Aggregator(s.byPlatformRating, {}).run<PlatformRatingCount & Record<string, unknown>>(docs);
  const sentiment = new Aggregator(s.sentimentSum, {}).run<SentimentSum & Record<string, unknown>>(docs);
  expect(sentiment.length).toBeLessThanOrEqual(1);
  const count = (filter: object) => new Query(filter as Record<string, unknown>, {}).find(docs).all().length;
  const raw = rawStats(rows, { count: count(s.sentimentCount), sum: sentiment[0]?.sum ?? 0 }, count(s.last30), count(s.last7));
  return { raw, stats: finishStats(raw) };
}

/** Every stage and expression operator a query uses, to check against what FerretDB 1.24 implements. */
function operators(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) operators(v, out);
  else if (value && typeof value === 'object' && !(value instanceof Date)) {
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith('$')) out.add(k);
      operators(v, out);
    }
  }
  return out;
}

const ids = (rs: readonly Review[]) => rs.map((r) => r.id);

describe('document mapping', () => {
  it('stores dates as Dates and the integer sentiment, and maps back to the same review', () => {
    for (const review of fixture.reviews.slice(0, 300)) {
      const doc = toDocument(review);
      expect(doc.date).toBeInstanceOf(Date);
      expect(doc.createdAt).toBeInstanceOf(Date);
      expect(doc.sentimentE6).toBe(review.sentiment === null ? null : Math.round(review.sentiment * 1e6));
      expect(Number.isInteger(doc.sentimentE6 ?? 0)).toBe(true);
      expect(doc._id).toBe(reviewKey(review.orgId, review.platform, review.externalId));
      expect(fromDocument(doc)).toEqual(review);
      // Nothing of the document's own leaks back out.
      expect(Object.keys(fromDocument(doc)).sort()).toEqual(Object.keys(review).sort());
    }
  });

  it('keys documents by the natural key, distinct for every (organization, platform, external id)', () => {
    expect(new Set(docs.map((d) => d._id)).size).toBe(docs.length);
    expect(reviewKey('org_a', 'G2', 'x/y')).not.toBe(reviewKey('org_a', 'G2X', '/y'));
  });

  it('declares the compound indexes of the list queries', () => {
    expect(reviewIndexes.map((i) => i.key)).toEqual([
      { orgId: 1, date: -1, id: -1 },
      { orgId: 1, platform: 1, date: -1, id: -1 },
      { orgId: 1, rating: 1, date: -1, id: -1 },
      { orgId: 1, platform: 1, rating: 1, date: -1, id: -1 },
      { orgId: 1, language: 1, date: -1, id: -1 },
      { orgId: 1, productId: 1, date: -1, id: -1 },
      { orgId: 1, 'reply.date': 1, platform: 1, date: -1, id: -1 },
      { orgId: 1, sourceId: 1, date: -1, id: -1 },
    ]);
    expect(listSort).toEqual({ date: -1, id: -1 });
  });
});

describe('listFilter + listSort through mingo', () => {
  it('agrees with the reference and with ReviewIndex for every filter combination', () => {
    let compared = 0;
    const sinces = [undefined, fixture.sinceCandidates[4], new Date(fixture.now.getTime() - 30 * DAY), new Date('2026-01-01T00:00:00.000Z')];
    for (const orgId of [fixture.orgIds[0]!, fixture.orgIds[2]!]) {
      for (const platforms of [undefined, ['GOOGLE'], ['FACEBOOK', 'G2'], [], ['NOPE'], [FIXTURE_EXTRA_PLATFORM]]) {
        for (const [minRating, maxRating] of [[undefined, undefined], [4, undefined], [undefined, 2], [2.5, 4.5], [5, 5], [4, 3]] as const) {
          for (const since of sinces) {
            for (const [offset, limit] of [[0, 20], [33, 7], [400, 100]] as const) {
              const q: ReviewQuery = { orgId, offset, limit };
              if (platforms !== undefined) q.platforms = platforms;
              if (minRating !== undefined) q.minRating = minRating;
              if (maxRating !== undefined) q.maxRating = maxRating;
              if (since !== undefined) q.since = since;
              const expected = referenceList(fixture.reviews, q);
              const mongo = mongoList(q);
              const embedded = index.list(q);
              expect(mongo.total).toBe(expected.total);
              expect(ids(mongo.items)).toEqual(ids(expected.items));
              expect(mongo.items).toEqual(expected.items);
              expect(embedded.total).toBe(mongo.total);
              expect(ids(embedded.items)).toEqual(ids(mongo.items));
              compared++;
            }
          }
        }
      }
    }
    expect(compared).toBe(2 * 6 * 6 * 4 * 3);
  });

  it('filters by language like the reference and ReviewIndex, alone and with the other filters', () => {
    let matched = 0;
    for (const language of ['en', 'de', 'he', 'xx']) {
      for (const extra of [{}, { platforms: ['GOOGLE'] }, { minRating: 4 }, { since: fixture.sinceCandidates[4]! }]) {
        const q: ReviewQuery = { orgId: fixture.orgIds[0]!, language, offset: 5, limit: 20, ...extra };
        const expected = referenceList(fixture.reviews, q);
        expect(ids(mongoList(q).items)).toEqual(ids(expected.items));
        expect(mongoList(q).total).toBe(expected.total);
        expect(ids(index.list(q).items)).toEqual(ids(expected.items));
        matched += expected.total;
      }
    }
    expect(matched).toBeGreaterThan(0);
  });

  it('never matches a null rating with a rating filter, and since is strictly after', () => {
    const unrated = fixture.reviews.filter((r) => r.orgId === fixture.orgIds[0] && r.rating === null);
    expect(unrated.length).toBeGreaterThan(0);
    const rated = mongoList({ orgId: fixture.orgIds[0]!, minRating: 1, limit: 10_000, offset: 0 });
    expect(rated.items.some((r) => r.rating === null)).toBe(false);
    expect(rated.total).toBe(fixture.byOrg(fixture.orgIds[0]!).length - unrated.length);
    const at = fixture.byOrg(fixture.orgIds[0]!)[0]!;
    const after = mongoList({ orgId: at.orgId, since: new Date(at.date), limit: 10_000, offset: 0 });
    expect(after.items.every((r) => Date.parse(r.date) > Date.parse(at.date))).toBe(true);
    expect(ids(after.items)).not.toContain(at.id);
  });
});

describe('statsQueries through mingo', () => {
  it('uses only operators MongoDB 6+ and FerretDB 1.24 both implement', () => {
    const s = statsQueries({ orgId: 'org_a', now: fixture.now, platforms: ['GOOGLE'] });
    const used = operators([s, listFilter({ orgId: 'org_a', platforms: ['G2'], minRating: 2, maxRating: 4, since: fixture.now })]);
    expect([...used].sort()).toEqual(['$group', '$gt', '$gte', '$in', '$lte', '$match', '$ne', '$sum']);
  });

  it('agrees with the reference and with ReviewIndex, per organization, platform scope and clock', () => {
    const t = fixture.now.getTime();
    for (const orgId of [...fixture.orgIds, 'org_unknown']) {
      for (const platforms of [undefined, ['GOOGLE'], ['FACEBOOK', 'YELP', 'NOPE'], [], [FIXTURE_EXTRA_PLATFORM]]) {
        for (const now of [fixture.now, new Date(t - 7 * DAY), new Date(t + 1)]) {
          const q: StatsQuery = platforms === undefined ? { orgId, now } : { orgId, now, platforms };
          const expected = referenceStats(fixture.reviews, q);
          expect(mongoStats(q).stats).toEqual(expected);
          expect(index.stats(q)).toEqual(expected);
        }
      }
    }
  });

  it('counts a product’s statistics from one read of its reviews exactly as the five queries do', () => {
    const t = fixture.now.getTime();
    let counted = 0;
    for (const orgId of fixture.orgIds) {
      for (const productId of [...FIXTURE_PRODUCT_IDS, 'no-such-product']) {
        for (const platforms of [undefined, ['GOOGLE'], ['TRUSTPILOT', 'G2']]) {
          for (const now of [fixture.now, new Date(t - 7 * DAY), new Date(t + 1)]) {
            const q: StatsQuery = { orgId, now, productId, ...(platforms && { platforms }) };
            // The read the store makes: the match on the product's index, the four fields.
            const read = new Query(statsQueries(q).match as Record<string, unknown>, {}).find(docs, { _id: 0, platform: 1, rating: 1, date: 1, sentimentE6: 1 }).all() as unknown as StatsDocument[];
            const raw = rawStatsOf(read, q);
            expect(raw).toEqual(mongoStats(q).raw);
            expect(finishStats(raw)).toEqual(referenceStats(fixture.reviews, q));
            counted += raw.totalReviews;
          }
        }
      }
    }
    expect(counted).toBeGreaterThan(0);
  });
});
