import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SUBJECT_TYPES, type Review, type Widget } from '../api/store/types.ts';
import { buildWidgetJsonLd } from './build.ts';
import { FEW_RATINGS, formatFindings, lintWidgetSchema, type Finding } from './lint.ts';
import { knownDataSet, makeReview, makeWidget, statsOf, subjectFor } from './testing/fixtures.ts';
import { validateJsonLd } from './testing/validate.ts';

/** Reviews collected on the site owner's own site (a platform that is not another website). */
function ownSiteReviews(ratings: (number | null)[]): Review[] {
  return ratings.map((rating) => makeReview({ platform: 'WEBSITE', rating }));
}

function lint(widget: Widget, reviews: Review[], organizationName = 'Acme Corp', displayed = reviews): Finding[] {
  return lintWidgetSchema({ widget, stats: statsOf(reviews), reviews: displayed, organizationName });
}

const rules = (findings: Finding[]): string[] => findings.map((f) => `${f.severity}:${f.rule}`);

describe('lintWidgetSchema', () => {
  it('finds nothing for a product with enough first-party ratings', () => {
    const widget = makeWidget(subjectFor('Product'));
    expect(lint(widget, ownSiteReviews([5, 4, 4, 3, 5, 2]))).toEqual([]);
  });

  it('flags the site owner\'s own Organization or LocalBusiness as self-serving (error)', () => {
    const reviews = ownSiteReviews([5, 5, 4, 4, 5]);
    for (const [type, name] of [['Organization', 'Acme Corp'], ['LocalBusiness', 'ACME, Inc.'], ['LocalBusiness', 'Ácme corp.']] as const) {
      const findings = lint(makeWidget({ type, name }), reviews, 'Acme Corp');
      expect(rules(findings)).toEqual(['error:self-serving-reviews']);
      expect(findings[0]?.link).toBe('https://developers.google.com/search/docs/appearance/structured-data/review-snippet#guidelines');
      expect(findings[0]?.message).toContain('jsonLd: "auto"');
    }
  });

  it('warns for another organization\'s name: self-serving unless the site is not theirs', () => {
    const findings = lint(makeWidget({ type: 'Organization', name: 'Globex' }, { jsonLd: 'on' }), ownSiteReviews([5, 5, 4, 4, 5]));
    expect(rules(findings)).toEqual(['warning:self-serving-reviews']);
    expect(findings[0]?.message).toContain('injects');
  });

  it('flags reviews aggregated from other websites, naming them', () => {
    const findings = lint(makeWidget(subjectFor('Product')), knownDataSet());
    expect(rules(findings)).toEqual(['error:third-party-reviews', 'warning:unrated-reviews-left-out']);
    expect(findings[0]?.message).toContain('GOOGLE (7), TRUSTPILOT (6), FACEBOOK (4), YELP (3), G2 (1)');
  });

  it('only names the platforms the widget shows', () => {
    const all = [...knownDataSet(), ...ownSiteReviews([5, 5, 5, 5, 5])];
    const widget = makeWidget(subjectFor('Product'), { platforms: ['WEBSITE'] });
    expect(lintWidgetSchema({ widget, stats: statsOf(all, ['WEBSITE']), reviews: [], organizationName: 'Acme' })).toEqual([]);
    const yelp = makeWidget(subjectFor('Product'), { platforms: ['WEBSITE', 'YELP'] });
    const findings = lintWidgetSchema({ widget: yelp, stats: statsOf(all, ['WEBSITE', 'YELP']), reviews: [], organizationName: 'Acme' });
    expect(findings.map((f) => f.message).join()).toContain('YELP (3)');
    expect(findings.map((f) => f.message).join()).not.toContain('GOOGLE');
  });

  it('errors without a rated review and warns below the threshold', () => {
    const widget = makeWidget(subjectFor('Book'));
    expect(rules(lint(widget, ownSiteReviews([null, null])))).toEqual(['error:too-few-reviews']);
    expect(rules(lint(widget, []))).toEqual(['error:too-few-reviews']);
    expect(rules(lint(widget, ownSiteReviews([5, 4, 3, 2])))).toEqual(['warning:too-few-reviews']);
    expect(lint(widget, ownSiteReviews([5, 4, 3, 2])).at(0)?.message).toContain('Only 4 rated reviews');
    expect(lint(widget, ownSiteReviews(Array.from({ length: FEW_RATINGS }, () => 4)))).toEqual([]);
  });

  it('reports missing required properties', () => {
    const reviews = ownSiteReviews([5, 4, 5, 4, 5]);
    expect(rules(lint(makeWidget({ ...subjectFor('Product'), name: ' \n ' }), reviews))).toEqual(['error:missing-required-property']);
    expect(rules(lint(makeWidget({ ...subjectFor('Recipe'), image: null }), reviews))).toEqual(['error:missing-required-property']);
    const unknown = makeWidget({ ...subjectFor('Product'), type: 'Spaceship' as Widget['subject']['type'] });
    expect(lint(unknown, reviews).map((f) => f.message).join()).toContain('"Spaceship" is not one Google accepts');
  });

  it('warns about URLs that are left out', () => {
    const widget = makeWidget({ ...subjectFor('Product'), url: 'javascript:alert(1)', image: 'ftp://x/y.png' });
    const findings = lint(widget, ownSiteReviews([5, 4, 5, 4, 5]));
    expect(rules(findings)).toEqual(['warning:invalid-url', 'warning:invalid-url']);
  });

  it('warns about hand-picked, shortened and unrated displayed reviews', () => {
    const reviews = [
      ...ownSiteReviews([5, 5, 5, 4, 1, 1]),
      makeReview({ platform: 'WEBSITE', rating: 5, authorName: 'n'.repeat(120) }),
      makeReview({ platform: 'WEBSITE', rating: null }),
    ];
    const widget = makeWidget(subjectFor('Product'), { minRating: 4 });
    const findings = lint(widget, reviews);
    expect(rules(findings)).toEqual(['warning:selective-reviews', 'warning:author-name-too-long', 'warning:unrated-reviews-left-out']);
  });

  it('lists errors before warnings and links every finding to Google Search Central', () => {
    const widget = makeWidget({ type: 'Organization', name: 'Acme Corp', url: 'nope' }, { minRating: 5 });
    const findings = lint(widget, knownDataSet().slice(0, 3));
    expect(findings.length).toBeGreaterThan(3);
    const firstWarning = findings.findIndex((f) => f.severity === 'warning');
    expect(findings.slice(firstWarning).every((f) => f.severity === 'warning')).toBe(true);
    expect(findings.slice(0, firstWarning).every((f) => f.severity === 'error')).toBe(true);
    for (const f of findings) expect(f.link).toMatch(/^https:\/\/developers\.google\.com\/search\/docs\/appearance\/structured-data\//);
  });

  it('agrees with the independent validator on what makes the markup invalid', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SUBJECT_TYPES),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }), { maxLength: 8 }),
        async (type, hasName, hasImage, ratings) => {
          const subject = { ...subjectFor(type), name: hasName ? `A ${type}` : '', image: hasImage ? 'https://x.example/i.png' : null };
          const widget = makeWidget(subject);
          const reviews = ownSiteReviews(ratings);
          const stats = statsOf(reviews);
          const doc = buildWidgetJsonLd({ widget, stats, reviews });
          const lintErrors = lintWidgetSchema({ widget, stats, reviews, organizationName: 'Nobody' }).filter(
            (f) => f.severity === 'error' && f.rule !== 'self-serving-reviews',
          );
          const report = await validateJsonLd(JSON.parse(JSON.stringify(doc)) as object);
          expect(report.errors.length > 0).toBe(lintErrors.length > 0);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('formatFindings', () => {
  it('prints one finding per entry with its link', () => {
    const text = formatFindings(lint(makeWidget(subjectFor('Product')), ownSiteReviews([5])));
    expect(text).toContain('warning too-few-reviews: Only 1 rated review:');
    expect(text).toContain('#aggregated-rating-type-definition');
    expect(formatFindings([])).toMatch(/^No findings/);
  });
});
