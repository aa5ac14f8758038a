import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SUBJECT_TYPES, type Review } from '../api/store/types.ts';
import { AUTHOR_NAME_MAX, authorName, buildWidgetJsonLd, ratingSummary } from './build.ts';
import { distribution, knownDataSet, makeReview, makeWidget, statsOf, subjectFor } from './testing/fixtures.ts';
import { validateJsonLd } from './testing/validate.ts';

/** Reads the document as plain JSON, the way a crawler sees it. */
function asJson(doc: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}

/** No lone surrogate (in a /u regex the class matches only unpaired halves). */
function wellFormed(s: string): boolean {
  return !/[\uD800-\uDFFF]/u.test(s);
}

async function expectValid(doc: unknown): Promise<void> {
  const report = await validateJsonLd(asJson(doc));
  expect(report.errors).toEqual([]);
}

describe('aggregate over the known data set', () => {
  const reviews = knownDataSet();

  it.each([
    // [widget platforms, ratingValue, reviewCount] — worked out by hand from the data set.
    [null, 3.94, 17], // 67 / 17 = 3.941
    [['GOOGLE', 'FACEBOOK'], 3.86, 7], // 27 / 7 = 3.857; Facebook has no stars
    [['TRUSTPILOT'], 4.33, 6], // 26 / 6 = 4.333
    [['YELP', 'G2'], 3.5, 4], // 14 / 4 = 3.5
    [['GOOGLE', 'YELP', 'TRUSTPILOT'], 4, 16], // 64 / 16 = 4.0
  ] as const)('platforms %j', (platforms, ratingValue, reviewCount) => {
    const list = platforms ? [...platforms] : null;
    const widget = makeWidget({}, { platforms: list });
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf(reviews, list ?? undefined), reviews: [] }));
    expect(doc.aggregateRating).toEqual({ '@type': 'AggregateRating', ratingValue, reviewCount, bestRating: 5, worstRating: 1 });
  });

  it('has no aggregateRating when the only platform has no stars', () => {
    const widget = makeWidget({}, { platforms: ['FACEBOOK'] });
    const facebook = reviews.filter((r) => r.platform === 'FACEBOOK');
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf(reviews, ['FACEBOOK']), reviews: facebook }));
    expect(doc).not.toHaveProperty('aggregateRating');
    expect(doc).not.toHaveProperty('review');
    expect(doc).toEqual({ '@context': 'https://schema.org', '@type': 'Product', name: 'Acme Trail Shoes' });
  });

  it('counts every rated review of the platforms, not only those the display filters pick', () => {
    const widget = makeWidget({}, { minRating: 5, maxReviews: 2 });
    const displayed = reviews.filter((r) => r.rating === 5).slice(0, 2);
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf(reviews), reviews: displayed }));
    expect(doc.aggregateRating).toMatchObject({ ratingValue: 3.94, reviewCount: 17 });
    expect(doc.review).toHaveLength(2);
  });
});

describe('ratingSummary', () => {
  it('keeps the two decimals of /reviews/stats: the data, not a display (issue 28, item 6)', () => {
    expect(ratingSummary(distribution({ 5: 15, 4: 85 }))).toEqual({ ratingValue: 4.15, reviewCount: 100 });
    expect(ratingSummary(distribution({ 5: 149, 4: 851 }))).toEqual({ ratingValue: 4.15, reviewCount: 1000 });
  });

  it('rounds half up to two decimals, as the statistics do (4.125 → 4.13, 4.3333 → 4.33)', () => {
    expect(ratingSummary(distribution({ 5: 1, 4: 7 }))?.ratingValue).toBe(4.13);
    expect(ratingSummary(distribution({ 5: 1, 4: 2 }))?.ratingValue).toBe(4.33);
  });

  it('ignores unrated reviews and returns null when nothing is rated', () => {
    expect(ratingSummary(distribution({ 1: 2 }, 50))).toEqual({ ratingValue: 1, reviewCount: 2 });
    expect(ratingSummary(distribution({}, 12))).toBeNull();
    expect(ratingSummary([])).toBeNull();
  });

  it.each([
    [[{ rating: 6, count: 1 }]],
    [[{ rating: 0, count: 1 }]],
    [[{ rating: 4.5, count: 1 }]],
    [[{ rating: Number.NaN, count: 1 }]],
    [[{ rating: 5, count: -1 }]],
    [[{ rating: 5, count: 1.5 }]],
    [[{ rating: null, count: Number.POSITIVE_INFINITY }]],
  ])('refuses a corrupt distribution %j', (dist) => {
    expect(() => ratingSummary(dist)).toThrow(TypeError);
  });

  it('matches the exact average for any set of ratings', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }), { maxLength: 400 }), (ratings) => {
        const rated = ratings.filter((r): r is number => r !== null);
        const counts: Partial<Record<1 | 2 | 3 | 4 | 5, number>> = {};
        for (const r of rated) counts[r as 1 | 2 | 3 | 4 | 5] = (counts[r as 1 | 2 | 3 | 4 | 5] ?? 0) + 1;
        const summary = ratingSummary(distribution(counts, ratings.length - rated.length));
        if (rated.length === 0) return summary === null;
        const sum = rated.reduce((a, b) => a + b, 0);
        // Integer arithmetic: round(100·sum/n) half up = floor((200·sum + n) / 2n).
        const hundredths = Math.floor((200 * sum + rated.length) / (2 * rated.length));
        return summary !== null && summary.reviewCount === rated.length && summary.ratingValue === hundredths / 100;
      }),
      { numRuns: 300 },
    );
  });
});

describe('review items', () => {
  it('turns displayed rated reviews into Review items', () => {
    const review = makeReview({
      authorName: '  Ana\n  María  ',
      rating: 4,
      content: '  Comfortable from day one.  ',
      date: '2026-03-04T23:59:59.000Z',
    });
    const doc = asJson(buildWidgetJsonLd({ widget: makeWidget(), stats: statsOf([review]), reviews: [review] }));
    expect(doc.review).toEqual([
      {
        '@type': 'Review',
        author: { '@type': 'Person', name: 'Ana María' },
        datePublished: '2026-03-04',
        reviewBody: 'Comfortable from day one.',
        reviewRating: { '@type': 'Rating', ratingValue: 4, bestRating: 5, worstRating: 1 },
      },
    ]);
  });

  it('leaves out reviews without stars, with a broken rating, without author, of another org or platform, and repeats', () => {
    const keep = makeReview({ rating: 3, platform: 'YELP' });
    const reviews: Review[] = [
      makeReview({ rating: null, platform: 'YELP' }),
      makeReview({ rating: 0, platform: 'YELP' }),
      makeReview({ rating: 4.5, platform: 'YELP' }),
      makeReview({ rating: 7, platform: 'YELP' }),
      makeReview({ authorName: ' \n\t ', platform: 'YELP' }),
      makeReview({ orgId: 'org_someone_else', platform: 'YELP' }),
      makeReview({ platform: 'GOOGLE' }),
      keep,
      { ...keep },
    ];
    const widget = makeWidget({}, { platforms: ['yelp'] });
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf([keep]), reviews }));
    expect(doc.review).toHaveLength(1);
    expect(doc.review).toMatchObject([{ author: { name: keep.authorName }, reviewRating: { ratingValue: 3 } }]);
  });

  it('omits datePublished for an unparsable date and reviewBody for empty text, and stays valid', async () => {
    const review = makeReview({ date: 'not a date', content: '   ' });
    const doc = asJson(buildWidgetJsonLd({ widget: makeWidget(), stats: statsOf([review]), reviews: [review] }));
    expect(doc.review).toEqual([
      {
        '@type': 'Review',
        author: { '@type': 'Person', name: review.authorName },
        reviewRating: { '@type': 'Rating', ratingValue: 5, bestRating: 5, worstRating: 1 },
      },
    ]);
    await expectValid(doc);
  });
});

describe('authorName', () => {
  it('keeps names under 100 characters as they are', () => {
    expect(authorName('J. R. R. Tolkien')).toBe('J. R. R. Tolkien');
    expect(authorName('x'.repeat(99))).toBe('x'.repeat(99));
  });

  it('caps long names below 100 characters with an ellipsis', () => {
    const name = authorName('Very Long Name '.repeat(20));
    expect(name.length).toBeLessThanOrEqual(AUTHOR_NAME_MAX);
    expect(name.endsWith('…')).toBe(true);
    expect(authorName('x'.repeat(100))).toBe(`${'x'.repeat(98)}…`);
  });

  it('never splits a surrogate pair or an emoji sequence', () => {
    const family = '👨‍👩‍👧‍👦'; // 11 UTF-16 units, one grapheme
    const name = authorName(family.repeat(20));
    expect(name.length).toBeLessThanOrEqual(AUTHOR_NAME_MAX);
    expect(wellFormed(name)).toBe(true);
    expect(name).toBe(`${family.repeat(8)}…`);
  });

  it('is under 100 characters and well-formed for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (raw) => {
        const name = authorName(raw);
        return name.length <= AUTHOR_NAME_MAX && wellFormed(name) && !/[\p{Cc}\u2028\u2029]/u.test(name);
      }),
    );
  });
});

describe('subject', () => {
  it('describes the subject with its url, image and brand', () => {
    const widget = makeWidget({
      type: 'Product',
      name: 'Acme Trail Shoes',
      url: 'https://shop.example.com/shoes',
      image: 'https://cdn.example.com/shoes.jpg',
      brand: 'Acme',
    });
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf([]), reviews: [] }));
    expect(doc).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Acme Trail Shoes',
      url: 'https://shop.example.com/shoes',
      image: 'https://cdn.example.com/shoes.jpg',
      brand: { '@type': 'Brand', name: 'Acme' },
    });
  });

  it('leaves out brand where schema.org has none (creative works)', () => {
    const widget = makeWidget({ type: 'SoftwareApplication', name: 'Acme CLI', brand: 'Acme' });
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf([]), reviews: [] }));
    expect(doc).not.toHaveProperty('brand');
  });

  it.each(['javascript:alert(1)', 'data:image/png;base64,AAAA', '/relative/path', 'not a url', ''])(
    'leaves out the non-http URL %j',
    (bad) => {
      const widget = makeWidget({ url: bad, image: bad });
      const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf([]), reviews: [] }));
      expect(doc).not.toHaveProperty('url');
      expect(doc).not.toHaveProperty('image');
    },
  );
});

describe('every emitted document passes the offline validators', () => {
  const reviews = knownDataSet();

  it.each(SUBJECT_TYPES)('%s', async (type) => {
    const widget = makeWidget(subjectFor(type));
    const doc = buildWidgetJsonLd({ widget, stats: statsOf(reviews), reviews: reviews.slice(0, 10) });
    expect(asJson(doc)).toMatchObject({ '@type': type, aggregateRating: { reviewCount: 17 } });
    await expectValid(doc);
  });

  it('a catalog product: sku and gtin beside name, url, image and brand (CONTRACT §13)', async () => {
    const direct = reviews.map((r) => ({ ...r, platform: 'DIRECT' }));
    const widget = makeWidget(subjectFor('Product'));
    const doc = asJson(buildWidgetJsonLd({ widget, stats: statsOf(direct), reviews: direct.slice(0, 5), product: { id: 'trail-shoe-42', gtin: '4006381333931' } }));
    expect(doc).toMatchObject({ '@type': 'Product', sku: 'trail-shoe-42', gtin: '4006381333931', brand: { '@type': 'Brand', name: 'Acme' }, url: expect.any(String), image: expect.any(String) });
    expect(doc.review).toHaveLength(5);
    await expectValid(doc);
    const noGtin = asJson(buildWidgetJsonLd({ widget, stats: statsOf(direct), reviews: direct.slice(0, 5), product: { id: 'sock', gtin: null } }));
    expect(noGtin).not.toHaveProperty('gtin');
    await expectValid(noGtin);
  });

  it('for random review sets', async () => {
    const review = fc.record({
      platform: fc.constantFrom('GOOGLE', 'YELP', 'TRUSTPILOT', 'G2', 'CAPTERRA', 'FACEBOOK'),
      rating: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
      authorName: fc.string({ maxLength: 150 }),
      content: fc.string({ maxLength: 200 }),
      date: fc.date({ min: new Date('2000-01-01'), max: new Date('2026-11-21'), noInvalidDate: true }).map((d) => d.toISOString()),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SUBJECT_TYPES), fc.array(review, { maxLength: 25 }), async (type, fields) => {
        const all = fields.map((f) => makeReview(f));
        const doc = asJson(buildWidgetJsonLd({ widget: makeWidget(subjectFor(type)), stats: statsOf(all), reviews: all }));
        if (!all.some((r) => r.rating !== null)) {
          expect(doc).not.toHaveProperty('aggregateRating');
          return;
        }
        const report = await validateJsonLd(doc);
        expect(report.errors).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});

describe('the validators catch broken documents', () => {
  // Controls: the checks above would pass vacuously if the validators accepted anything.
  const good = (): Record<string, unknown> =>
    asJson(buildWidgetJsonLd({ widget: makeWidget(), stats: statsOf(knownDataSet()), reviews: knownDataSet().slice(0, 3) }));

  it('accepts the control document', async () => {
    await expectValid(good());
  });

  it.each([
    ['a misspelled property', (d: Record<string, unknown>) => ({ ...d, aggregateRatting: d.aggregateRating })],
    ['a property outside the type', (d: Record<string, unknown>) => ({ ...d, '@type': 'SoftwareApplication', brand: d.brand ?? { '@type': 'Brand', name: 'X' } })],
    ['an unknown type', (d: Record<string, unknown>) => ({ ...d, '@type': 'Produkt' })],
    ['a missing name', ({ name: _name, ...d }: Record<string, unknown>) => d],
    ['no rating, review or offer', ({ aggregateRating: _a, review: _r, ...d }: Record<string, unknown>) => d],
    ['a count that is not an integer', (d: Record<string, unknown>) => ({ ...d, aggregateRating: { ...(d.aggregateRating as object), reviewCount: 2.5 } })],
    ['a rating above the best', (d: Record<string, unknown>) => ({ ...d, aggregateRating: { ...(d.aggregateRating as object), ratingValue: 7 } })],
    ['a sku on a type without one', (d: Record<string, unknown>) => ({ ...d, '@type': 'Organization', sku: 'x-1' })],
    ['a gtin that is not text', (d: Record<string, unknown>) => ({ ...d, gtin: { '@type': 'Brand', name: '4006381333931' } })],
    ['a review without reviewRating', (d: Record<string, unknown>) => ({ ...d, review: [{ '@type': 'Review', author: { '@type': 'Person', name: 'A' } }] })],
  ])('rejects %s', async (_label, mutate) => {
    const report = await validateJsonLd(mutate(good()));
    expect(report.errors.length).toBeGreaterThan(0);
  });
});
