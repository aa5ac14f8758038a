/** Records for the schema tests, built from the store types. */
import type { Review, ReviewStats, SubjectType, Widget, WidgetOptions, WidgetSubject } from '../../api/store/types.ts';

export const ORG_ID = 'org_schema_test';

export function makeWidget(
  subject: Partial<WidgetSubject> = {},
  options: Partial<WidgetOptions> = {},
): Widget {
  return {
    id: 'wgt_schema_test',
    orgId: ORG_ID,
    name: 'Product page',
    layout: 'list',
    subject: { type: 'Product', name: 'Acme Trail Shoes', url: null, image: null, brand: null, ...subject },
    options: {
      theme: 'light',
      accentColor: '#4f46e5',
      maxReviews: 10,
      minRating: null,
      platforms: null,
      hideEmpty: false,
      showDates: true,
      locale: null,
      jsonLd: 'auto',
      // The building rules over every platform; tests of the honest default (direct) say so.
      jsonLdSources: 'all',
      ...options,
    },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

let seq = 0;

export function makeReview(fields: Partial<Review> = {}): Review {
  seq += 1;
  const id = `rev_${String(seq).padStart(5, '0')}`;
  return {
    id,
    orgId: ORG_ID,
    platform: 'GOOGLE',
    externalId: `ext-${id}`,
    authorName: `Reviewer ${seq}`,
    authorAvatar: null,
    rating: 5,
    content: `Review text ${seq}`,
    date: '2026-10-01T12:00:00.000Z',
    url: null,
    language: 'en',
    isVerified: false,
    sentiment: null,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
    createdAt: '2026-10-02T00:00:00.000Z',
    updatedAt: '2026-10-02T00:00:00.000Z',
    productId: null,
    reply: null,
    ...fields,
  };
}

/**
 * The known data set: 21 reviews, 17 of them rated.
 * GOOGLE 5 5 5 4 4 3 1 (sum 27) · YELP 4 2 5 (11) · TRUSTPILOT 5 5 4 4 4 4 (26)
 * · G2 3 (3) · FACEBOOK four recommendations without stars.
 */
export function knownDataSet(): Review[] {
  const spec: [string, (number | null)[]][] = [
    ['GOOGLE', [5, 5, 5, 4, 4, 3, 1]],
    ['YELP', [4, 2, 5]],
    ['TRUSTPILOT', [5, 5, 4, 4, 4, 4]],
    ['G2', [3]],
    ['FACEBOOK', [null, null, null, null]],
  ];
  const reviews: Review[] = [];
  let day = 1;
  for (const [platform, ratings] of spec) {
    for (const rating of ratings) {
      reviews.push(makeReview({ platform, rating, date: `2026-09-${String(day).padStart(2, '0')}T08:30:00.000Z` }));
      day += 1;
    }
  }
  return reviews;
}

/**
 * Statistics as the store reports them (CONTRACT §3): distribution 5..1, then
 * null when unrated reviews exist; platforms by count descending. Only what the
 * schema modules read is computed with care; the rest is plausible filler.
 */
export function statsOf(reviews: readonly Review[], platforms?: readonly string[]): ReviewStats {
  const scoped = platforms ? reviews.filter((r) => platforms.includes(r.platform)) : [...reviews];
  const rated = scoped.filter((r) => r.rating !== null);
  const byPlatform = new Map<string, Review[]>();
  for (const r of scoped) byPlatform.set(r.platform, [...(byPlatform.get(r.platform) ?? []), r]);
  const average = (rs: Review[]): number | null => {
    const rr = rs.filter((r) => r.rating !== null);
    return rr.length === 0 ? null : Math.round((rr.reduce((s, r) => s + (r.rating ?? 0), 0) / rr.length) * 100) / 100;
  };
  const unrated = scoped.length - rated.length;
  return {
    totalReviews: scoped.length,
    averageRating: average(scoped),
    averageSentiment: null,
    last30Days: 0,
    last7Days: 0,
    platforms: [...byPlatform.entries()]
      .map(([platform, rs]) => ({ platform, count: rs.length, averageRating: average(rs) }))
      .sort((a, b) => b.count - a.count),
    ratingDistribution: [
      ...[5, 4, 3, 2, 1].map((rating) => ({ rating, count: rated.filter((r) => r.rating === rating).length })),
      ...(unrated > 0 ? [{ rating: null, count: unrated }] : []),
    ],
  };
}

/** A distribution with the given number of reviews per star (5 down to 1) and unrated. */
export function distribution(counts: Partial<Record<1 | 2 | 3 | 4 | 5, number>>, unrated = 0): ReviewStats['ratingDistribution'] {
  return [
    ...([5, 4, 3, 2, 1] as const).map((rating) => ({ rating, count: counts[rating] ?? 0 })),
    ...(unrated > 0 ? [{ rating: null, count: unrated }] : []),
  ];
}

/** A subject fit for review stars for each type (a Recipe needs an image). */
export function subjectFor(type: SubjectType): Partial<WidgetSubject> {
  return {
    type,
    name: `A ${type}`,
    url: 'https://shop.example.com/item',
    image: 'https://shop.example.com/item.jpg',
    brand: 'Acme',
  };
}
