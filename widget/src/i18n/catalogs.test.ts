import { describe, expect, it } from 'vitest';
import { EN } from '../messages.ts';
import { CATALOGS } from './catalogs.ts';

const placeholders = (s: string): string[] => (s.match(/\{\w+\}/g) ?? []).sort();

describe('language catalogs', () => {
  const langs = Object.keys(CATALOGS);

  it('at least 20 languages with English, including Arabic and Hebrew', () => {
    expect(langs.length + 1).toBeGreaterThanOrEqual(20);
    expect(langs).toEqual(expect.arrayContaining(['ar', 'he', 'fr', 'de', 'ja']));
    for (const lang of langs) expect(Intl.getCanonicalLocales(lang)[0], lang).toBe(lang);
  });

  it('every catalog has every string, with the same placeholders, and no English left over', () => {
    for (const [lang, t] of Object.entries(CATALOGS)) {
      expect(Object.keys(t).sort(), lang).toEqual(Object.keys(EN).filter((key) => key !== 'lang').sort());
      for (const key of Object.keys(EN) as (keyof typeof EN)[]) {
        if (key === 'reviews' || key === 'hidden' || key === 'lang') continue;
        expect(placeholders(t[key] as string), `${lang}.${key}`).toEqual(placeholders(EN[key] as string));
        expect(t[key], `${lang}.${key} is untranslated`).not.toBe(EN[key] === '{n} of {m}' ? 'x' : EN[key]);
      }
    }
  });

  it('plural forms: `other`, and a form for every category Intl.PluralRules gives the language', () => {
    for (const [lang, t] of Object.entries(CATALOGS)) {
      expect(t.reviews.other, lang).toContain('{n}');
      expect(t.hidden.other, lang).toContain('{n}');
      expect(t.hidden.other, `${lang}.hidden is untranslated`).not.toBe(EN.hidden.other);
      for (const category of new Intl.PluralRules(lang).resolvedOptions().pluralCategories) {
        expect(t.reviews[category], `${lang}.reviews.${category}`).toBeDefined();
        expect(t.hidden[category], `${lang}.hidden.${category}`).toBeDefined();
      }
    }
  });
});
