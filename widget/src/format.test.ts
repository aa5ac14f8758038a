import { describe, expect, it } from 'vitest';
import { formatNumber, formatter, initials, relativeDate, resolveLocale, reviewCount, starsLabel } from './format.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const en = formatter('en-US', NOW);

describe('format', () => {
  it('relative dates via Intl, localized', () => {
    expect(relativeDate('2026-11-20T12:00:00Z', en)).toBe('yesterday');
    expect(relativeDate('2026-11-07T12:00:00Z', en)).toBe('2 weeks ago');
    expect(relativeDate('2025-10-01T00:00:00Z', en)).toBe('last year');
    expect(relativeDate('2026-11-21T11:59:30Z', en)).toBe('30 seconds ago');
    expect(relativeDate('2026-09-01T00:00:00Z', formatter('de-DE', NOW))).toBe('vor 2 Monaten');
    expect(relativeDate('not a date', en)).toBe('');
  });

  it('locale: the widget’s when valid, else the browser’s, else English', () => {
    expect(resolveLocale('fr-fr', 'de')).toBe('fr-FR');
    expect(resolveLocale(null, 'de-AT')).toBe('de-AT');
    expect(resolveLocale('not a locale!', 'es')).toBe('es');
    expect(resolveLocale('%%%', undefined)).toBe('en');
  });

  it('counts, ratings and star labels', () => {
    expect(reviewCount(1, en)).toBe('1 review');
    expect(reviewCount(1234, en)).toBe('1,234 reviews');
    expect(formatNumber(4.66, formatter('de', NOW), 1, true)).toBe('4,7');
    expect(formatNumber(4, en, 1, true)).toBe('4.0');
    expect(starsLabel(4.5, en)).toBe('4.5 out of 5 stars');
    expect(starsLabel(5, en)).toBe('5 out of 5 stars');
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
