/**
 * Compile-time tests: `tsc --noEmit` (run by `npm test`) fails if any
 * `@ts-expect-error` below stops being an error, i.e. if the builder's types
 * started accepting properties schema.org does not define for the type.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { SubjectType } from '../api/store/types.ts';
import { buildWidgetJsonLd, type ReviewedThing, type SubjectLeafByType, type WidgetJsonLd } from './build.ts';
import { makeWidget, statsOf } from './testing/fixtures.ts';

describe('schema-dts typing', () => {
  it('maps every subject type to the leaf whose @type is that subject type', () => {
    expectTypeOf<keyof SubjectLeafByType>().toEqualTypeOf<SubjectType>();
    expectTypeOf<ReviewedThing['@type']>().toEqualTypeOf<SubjectType>();
    expectTypeOf<SubjectLeafByType['Book']['@type']>().toEqualTypeOf<'Book'>();
    expectTypeOf(buildWidgetJsonLd).returns.toEqualTypeOf<WidgetJsonLd>();
  });

  it('rejects misspelled and misplaced properties', () => {
    const good: WidgetJsonLd = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Acme',
      brand: { '@type': 'Brand', name: 'Acme' },
      aggregateRating: { '@type': 'AggregateRating', ratingValue: 4.5, reviewCount: 10, bestRating: 5, worstRating: 1 },
      review: [
        {
          '@type': 'Review',
          author: { '@type': 'Person', name: 'Ana' },
          datePublished: '2026-01-02',
          reviewBody: 'Good',
          reviewRating: { '@type': 'Rating', ratingValue: 5 },
        },
      ],
    };

    const misspelled: WidgetJsonLd = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      // @ts-expect-error `nmae` is not a schema.org property
      nmae: 'Acme',
    };

    const aggregate: WidgetJsonLd = {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Acme',
      // @ts-expect-error `reviewcount` is not a property of AggregateRating (reviewCount is)
      aggregateRating: { '@type': 'AggregateRating', ratingValue: 4, reviewcount: 3 },
    };

    const review: WidgetJsonLd = {
      '@context': 'https://schema.org',
      '@type': 'Book',
      name: 'A Book',
      // @ts-expect-error `rating` is not a property of Review (reviewRating is)
      review: { '@type': 'Review', author: { '@type': 'Person', name: 'Ana' }, rating: 5 },
    };

    const brandOnSoftware: WidgetJsonLd = {
      '@context': 'https://schema.org',
      '@type': 'SoftwareApplication',
      name: 'Acme CLI',
      // @ts-expect-error schema.org has no `brand` on creative works such as SoftwareApplication
      brand: { '@type': 'Brand', name: 'Acme' },
    };

    const wrongContext: WidgetJsonLd = {
      // @ts-expect-error the context is exactly https://schema.org
      '@context': 'http://schema.org',
      '@type': 'Product',
      name: 'Acme',
    };

    const notASubject: WidgetJsonLd = {
      '@context': 'https://schema.org',
      // @ts-expect-error a Person is not a widget subject type
      '@type': 'Person',
      name: 'Ana',
    };

    const docs = [good, misspelled, aggregate, review, brandOnSoftware, wrongContext, notASubject];
    expect(docs).toHaveLength(7);
  });

  it('builds a document of that type at run time', () => {
    const doc: WidgetJsonLd = buildWidgetJsonLd({ widget: makeWidget(), stats: statsOf([]), reviews: [] });
    expect(doc['@context']).toBe('https://schema.org');
  });
});
