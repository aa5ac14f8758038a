import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SUBJECT_TYPES, type WidgetOptions } from '../api/store/types.ts';
import { buildWidgetJsonLd } from './build.ts';
import { isOrganizationType, jsonLdScriptTag, serializeJsonLdForHtml, shouldInject } from './inject.ts';
import { makeReview, makeWidget, statsOf } from './testing/fixtures.ts';
import { validateJsonLd } from './testing/validate.ts';

describe('shouldInject', () => {
  it.each(SUBJECT_TYPES)('%s follows on/off/auto', (type) => {
    const self = type === 'LocalBusiness' || type === 'Organization';
    expect(shouldInject(makeWidget({ type }, { jsonLd: 'on' }))).toBe(true);
    expect(shouldInject(makeWidget({ type }, { jsonLd: 'off' }))).toBe(false);
    expect(shouldInject(makeWidget({ type }, { jsonLd: 'auto' }))).toBe(!self);
  });

  it('treats a missing or unknown setting as auto', () => {
    const legacy = (jsonLd: unknown, type: 'Product' | 'Organization') =>
      makeWidget({ type }, { jsonLd: jsonLd as WidgetOptions['jsonLd'] });
    expect(shouldInject(legacy(undefined, 'Product'))).toBe(true);
    expect(shouldInject(legacy('yes', 'Product'))).toBe(true);
    expect(shouldInject(legacy(undefined, 'Organization'))).toBe(false);
  });

  it('with the built document, auto skips markup that has neither rating nor review', () => {
    const rated = [makeReview({ rating: 4 })];
    const unrated = [makeReview({ rating: null })];
    for (const jsonLd of ['auto', 'on', 'off'] as const) {
      const widget = makeWidget({ type: 'Product' }, { jsonLd });
      const withRatings = buildWidgetJsonLd({ widget, stats: statsOf(rated), reviews: rated });
      const empty = buildWidgetJsonLd({ widget, stats: statsOf(unrated), reviews: unrated });
      expect(shouldInject(widget, withRatings)).toBe(jsonLd !== 'off');
      expect(shouldInject(widget, empty)).toBe(jsonLd === 'on');
    }
  });

  it('knows subtypes of Organization and LocalBusiness', () => {
    for (const type of ['Restaurant', 'Dentist', 'Corporation', 'Store', 'Hotel']) expect(isOrganizationType(type)).toBe(true);
    for (const type of ['Product', 'Book', 'SoftwareApplication', 'Event']) expect(isOrganizationType(type)).toBe(false);
  });
});

const PAYLOADS = [
  '</script><script>alert(1)</script>',
  '</SCRIPT ><img src=x onerror=alert(1)>',
  '<!--<script>alert(1)//',
  '<![CDATA[ ]]> --> -->',
  'a\u2028b\u2029c',
  '"quotes" \\ backslash & ampersand &amp; <b>',
  '\u0000 nul \u001f unit',
  '😀 surrogate pairs 👨‍👩‍👧',
];

/** What a crawler or browser must not see inside the script element. */
function expectInert(html: string): void {
  expect(html).not.toMatch(/<\/script/i);
  expect(html).not.toContain('<!--');
  expect(html).not.toMatch(/[<>&\u2028\u2029]/);
}

describe('serializeJsonLdForHtml', () => {
  it.each(PAYLOADS)('keeps %j inert and parses back to the original', (payload) => {
    const doc = { text: payload, nested: [{ name: payload }] };
    const out = serializeJsonLdForHtml(doc);
    expectInert(out);
    expect(JSON.parse(out)).toEqual(doc);
  });

  it('escapes with \\uXXXX', () => {
    expect(serializeJsonLdForHtml({ a: '<>&\u2028\u2029' })).toBe('{"a":"\\u003c\\u003e\\u0026\\u2028\\u2029"}');
  });

  it('escapes a lone surrogate instead of emitting invalid UTF-16', () => {
    const out = serializeJsonLdForHtml({ a: 'x\uD800y' });
    expect(out).toBe('{"a":"x\\ud800y"}');
    expect(JSON.parse(out)).toEqual({ a: 'x\uD800y' });
  });

  it('refuses what JSON cannot represent', () => {
    expect(() => serializeJsonLdForHtml(undefined)).toThrow(TypeError);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => serializeJsonLdForHtml(loop)).toThrow(TypeError);
  });

  it('round-trips any JSON and never emits <, >, &, U+2028, U+2029', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        const doc = { value, text };
        const out = serializeJsonLdForHtml(doc);
        expect(out).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(doc)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('hostile reviews in a widget document', () => {
  const reviews = PAYLOADS.map((payload, i) => makeReview({ authorName: payload, content: payload, rating: (i % 5) + 1 }));
  const widget = makeWidget({ name: '</script><script>alert("name")</script>', brand: '<!--<script>' });
  const doc = buildWidgetJsonLd({ widget, stats: statsOf(reviews), reviews });

  it('produce inert HTML that parses back to the document', () => {
    const tag = jsonLdScriptTag(doc, 'wgt_1');
    const body = tag.slice('<script type="application/ld+json" data-rv-jsonld="wgt_1">'.length, -'</script>'.length);
    expectInert(body);
    expect(tag.match(/<\/script/gi)).toHaveLength(1);
    expect(JSON.parse(body)).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('keep the review text itself, escaped rather than stripped', () => {
    const parsed = JSON.parse(serializeJsonLdForHtml(doc)) as { review: { reviewBody?: string }[] };
    expect(parsed.review.map((r) => r.reviewBody)).toContain('</script><script>alert(1)</script>');
  });

  it('still form a valid document', async () => {
    const report = await validateJsonLd(JSON.parse(serializeJsonLdForHtml(doc)) as object);
    expect(report.errors).toEqual([]);
  });
});

describe('jsonLdScriptTag', () => {
  it('escapes the widget id attribute', () => {
    const tag = jsonLdScriptTag({}, '"><script>alert(1)</script>');
    expect(tag).toBe(
      '<script type="application/ld+json" data-rv-jsonld="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;">{}</script>',
    );
  });

  it('omits the attribute without a widget id', () => {
    expect(jsonLdScriptTag({ a: 1 })).toBe('<script type="application/ld+json">{"a":1}</script>');
  });
});
