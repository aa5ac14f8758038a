/** The review page speaks every language the widget speaks, with every key and the same placeholders as English. */
import { describe, expect, it } from 'vitest';
import { CATALOGS } from './catalogs.ts';
import { REVIEW_PAGE_CATALOGS, REVIEW_PAGE_EN } from './review-page.ts';

const placeholders = (s: string): string[] => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

describe('review page catalogs', () => {
  it('has one for each of the widget languages, no more', () => {
    expect(Object.keys(REVIEW_PAGE_CATALOGS).sort()).toEqual(Object.keys(CATALOGS).sort());
  });

  for (const [lang, catalog] of Object.entries(REVIEW_PAGE_CATALOGS)) {
    it(`${lang}: every key, translated, with English's placeholders`, () => {
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(REVIEW_PAGE_EN).sort());
      for (const [key, english] of Object.entries(REVIEW_PAGE_EN)) {
        const text = catalog[key as keyof typeof catalog];
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        expect(placeholders(text), `${lang}.${key}`).toEqual(placeholders(english));
      }
      // Translated, not copied: the labels a reviewer reads first differ from English.
      expect(catalog.consent).not.toBe(REVIEW_PAGE_EN.consent);
    });
  }
});
