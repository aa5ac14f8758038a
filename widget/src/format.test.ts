import { describe, expect, it } from 'vitest';
import { countLine, formatNumber, formatter, resolveLocale, reviewCount, starsLabel } from './format.ts';
import { initials, relativeDate } from './review-format.ts';
import { CATALOGS } from './i18n/catalogs.ts';
import { EN } from './messages.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const en = formatter('en-US', NOW, EN);

describe('format', () => {
  it('relative dates via Intl, localized', () => {
    expect(relativeDate('2026-11-20T12:00:00Z', en)).toBe('yesterday');
    expect(relativeDate('2026-11-07T12:00:00Z', en)).toBe('2 weeks ago');
    expect(relativeDate('2025-10-01T00:00:00Z', en)).toBe('last year');
    expect(relativeDate('2026-11-21T11:59:30Z', en)).toBe('30 seconds ago');
    expect(relativeDate('2026-09-01T00:00:00Z', formatter('de-DE', NOW, CATALOGS.de!))).toBe('vor 2 Monaten');
    expect(relativeDate('not a date', en)).toBe('');
  });

  it('locale: the widget’s when valid, else the page’s <html lang>, else the browser’s, else English', () => {
    expect(resolveLocale('fr-fr', 'de', 'es')).toBe('fr-FR');
    expect(resolveLocale(null, 'de-AT', 'es')).toBe('de-AT');
    expect(resolveLocale(null, '', 'es')).toBe('es');
    expect(resolveLocale('not a locale!', 'es')).toBe('es');
    expect(resolveLocale('%%%', undefined)).toBe('en');
  });

  it('labels, numbers and dates in one language: a language without a catalog is English throughout', () => {
    const fr = formatter('fr-FR', NOW, CATALOGS.fr!);
    expect([fr.locale, fr.lang, fr.rtl]).toEqual(['fr-FR', 'fr', false]);
    expect(reviewCount(1234, fr)).toBe('1\u202f234 avis');
    expect(starsLabel(4.5, fr)).toBe('4,5 sur 5 étoiles');
    const sw = formatter('sw', NOW, EN);
    expect([sw.locale, sw.lang]).toEqual(['en', 'en']);
    expect(formatter('en-GB', NOW, EN).locale).toBe('en-GB');
    const ar = formatter('ar', NOW, CATALOGS.ar!);
    expect(ar.rtl).toBe(true);
    expect(reviewCount(2, ar)).toBe('تقييمان');
    expect(reviewCount(5, ar)).toBe('5 تقييمات');
    expect(formatter('he-IL', NOW, CATALOGS.he!).rtl).toBe(true);
  });

  it('plural forms by Intl.PluralRules (Russian, Polish)', () => {
    const ru = formatter('ru', NOW, CATALOGS.ru!);
    expect([1, 3, 5, 21].map((n) => reviewCount(n, ru))).toEqual(['1 отзыв', '3 отзыва', '5 отзывов', '21 отзыв']);
    const pl = formatter('pl', NOW, CATALOGS.pl!);
    expect([1, 2, 5].map((n) => reviewCount(n, pl))).toEqual(['1 opinia', '2 opinie', '5 opinii']);
  });

  it('builds each Intl formatter once per locale, however many calls and widgets', () => {
    const made = { n: 0, r: 0, p: 0 };
    const { NumberFormat, RelativeTimeFormat, PluralRules } = Intl;
    Object.assign(Intl, {
      NumberFormat: new Proxy(NumberFormat, { construct: (t, a) => (made.n++, Reflect.construct(t, a)) }),
      RelativeTimeFormat: new Proxy(RelativeTimeFormat, { construct: (t, a) => (made.r++, Reflect.construct(t, a)) }),
      PluralRules: new Proxy(PluralRules, { construct: (t, a) => (made.p++, Reflect.construct(t, a)) }),
    });
    try {
      for (let widget = 0; widget < 4; widget++) {
        const f = formatter('nl-BE', NOW, CATALOGS.nl!);
        for (let i = 0; i < 50; i++) {
          reviewCount(i, f);
          starsLabel(i % 5, f);
          relativeDate('2026-11-07T12:00:00Z', f);
        }
      }
    } finally {
      Object.assign(Intl, { NumberFormat, RelativeTimeFormat, PluralRules });
    }
    expect(made).toEqual({ n: 2, r: 1, p: 1 });
  });

  it('counts, ratings and star labels', () => {
    expect(reviewCount(1, en)).toBe('1 review');
    expect(reviewCount(1234, en)).toBe('1,234 reviews');
    expect(formatNumber(4.66, formatter('de', NOW, CATALOGS.de!), 1, true)).toBe('4,7');
    expect(formatNumber(4, en, 1, true)).toBe('4.0');
    expect(starsLabel(4.5, en)).toBe('4.5 out of 5 stars');
    expect(starsLabel(5, en)).toBe('5 out of 5 stars');
  });

  it('discloses hidden reviews after the count, pluralized by Intl.PluralRules, only when there are any', () => {
    expect(countLine({ totalReviews: 312, hiddenReviews: 0 }, en)).toBe('312 reviews');
    expect(countLine({ totalReviews: 312 }, en)).toBe('312 reviews');
    expect(countLine({ totalReviews: 312, hiddenReviews: 2 }, en)).toBe('312 reviews · 2 hidden by the owner');
    const ru = formatter('ru', NOW, CATALOGS.ru!);
    expect([1, 3, 5].map((n) => countLine({ totalReviews: 10, hiddenReviews: n }, ru))).toEqual([
      '10 отзывов · 1 скрыт владельцем',
      '10 отзывов · 3 скрыто владельцем',
      '10 отзывов · 5 скрыто владельцем',
    ]);
    const ar = formatter('ar', NOW, CATALOGS.ar!);
    expect(countLine({ totalReviews: 5, hiddenReviews: 2 }, ar)).toContain('تقييمان أخفاهما المالك');
  });

  it('initials from the first and last word, Unicode-aware', () => {
    expect(initials('Maria Gonzalez')).toBe('MG');
    expect(initials('  jean-luc   de la  Tour ')).toBe('JT');
    expect(initials('Øyvind')).toBe('Ø');
    expect(initials('😀 Ana')).toBe('A');
    expect(initials('𝒜lice Smith')).toBe('𝒜S');
    expect(initials('<script>')).toBe('S');
    expect(initials('   ')).toBe('?');
    expect(initials('!!!')).toBe('?');
  });
});
