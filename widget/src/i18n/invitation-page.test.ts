/** An invitation link's pages speak every language the review page speaks, with every key, translated. */
import { describe, expect, it } from 'vitest';
import { CATALOGS } from './catalogs.ts';
import { INVITATION_PAGE_CATALOGS, INVITATION_PAGE_EN } from './invitation-page.ts';

describe('invitation page catalogs', () => {
  it('has one for each of the widget languages, no more', () => {
    expect(Object.keys(INVITATION_PAGE_CATALOGS).sort()).toEqual(Object.keys(CATALOGS).sort());
  });

  for (const [lang, catalog] of Object.entries(INVITATION_PAGE_CATALOGS)) {
    it(`${lang}: every key, translated`, () => {
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(INVITATION_PAGE_EN).sort());
      for (const [key, english] of Object.entries(INVITATION_PAGE_EN)) {
        const text = catalog[key as keyof typeof catalog];
        expect(text.trim(), `${lang}.${key}`).not.toBe('');
        expect(text, `${lang}.${key}`).not.toBe(english);
      }
    });
  }
});
