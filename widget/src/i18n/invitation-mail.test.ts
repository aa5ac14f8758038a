/** The invitation mail speaks every language the review page speaks, with every key and the same placeholders as English. */
import { describe, expect, it } from 'vitest';
import { INVITATION_MAIL_CATALOGS, INVITATION_MAIL_EN } from './invitation-mail.ts';
import { REVIEW_PAGE_CATALOGS } from './review-page.ts';

const placeholders = (s: string): string[] => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

describe('invitation mail catalogs', () => {
  it("has one for each of the review page's languages, no more", () => {
    expect(Object.keys(INVITATION_MAIL_CATALOGS).sort()).toEqual(Object.keys(REVIEW_PAGE_CATALOGS).sort());
  });

  for (const [lang, catalog] of Object.entries(INVITATION_MAIL_CATALOGS)) {
    it(`${lang}: every key, translated, with English's placeholders`, () => {
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(INVITATION_MAIL_EN).sort());
      for (const [key, english] of Object.entries(INVITATION_MAIL_EN)) {
        const text = catalog[key as keyof typeof catalog];
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        expect(placeholders(text), `${lang}.${key}`).toEqual(placeholders(english));
        expect(text, `${lang}.${key}`).not.toBe(english);
      }
    });
  }
});
