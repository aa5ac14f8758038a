/**
 * Review intelligence as behaviour: every field present and within its
 * bounds, deterministic, given values kept, the fallbacks for short texts and
 * languages without a lexicon. Accuracy is measured by `npm run
 * bench:intelligence`, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { clearAnalysisCache, enrich, type Enrichable } from './enrich.ts';
import { scoreSentiment } from './sentiment.ts';
import { SUMMARY_MAX, cutAtWord } from './summary.ts';
import { THEMES } from './taxonomy.ts';
import { plainText } from './text.ts';

const blank = { sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] };
const review = (content: string, extra: Partial<Enrichable> = {}): Enrichable => ({ content, language: null, ...blank, ...extra });

const SAMPLES: [string, string][] = [
  ['en', 'The waiter was friendly and the pasta was excellent. We waited a bit for the table, but it was worth it.'],
  ['es', 'El personal fue muy amable y la comida estaba deliciosa. El precio es razonable.'],
  ['fr', 'Le service était rapide et le personnel très aimable. La chambre était propre.'],
  ['de', 'Das Personal war sehr freundlich und das Essen war lecker. Die Lieferung kam pünktlich.'],
  ['it', 'Il personale è stato gentile e il cibo ottimo. La consegna è arrivata in ritardo.'],
  ['pt', 'Os funcionários foram simpáticos e a comida estava ótima. O preço é justo.'],
  ['nl', 'Het personeel was vriendelijk en het eten was heerlijk. De levering was snel.'],
];

describe('enrich', () => {
  it.each(SAMPLES)('fills every AI field of a %s review, within bounds', (language, text) => {
    const out = enrich(review(text), 'en');
    expect(out.language).toBe(language);
    expect(out.sentiment).toBeGreaterThanOrEqual(0);
    expect(out.sentiment).toBeLessThanOrEqual(1);
    expect(['POSITIVE', 'NEUTRAL', 'NEGATIVE']).toContain(out.sentimentLabel);
    expect(out.aiThemes.length).toBeGreaterThan(0);
    expect(out.aiThemes.length).toBeLessThanOrEqual(4);
    for (const theme of out.aiThemes) expect(THEMES).toContain(theme);
    expect(new Set(out.aiThemes).size).toBe(out.aiThemes.length);
    expect(out.aiSummary).not.toBeNull();
    expect([...out.aiSummary!].length).toBeLessThanOrEqual(SUMMARY_MAX);
    // Extractive: the reviewer's own words.
    expect(text).toContain(out.aiSummary!.replace(/…$/, ''));
  });

  it('is deterministic: the same text gives the same fields, cached or not', () => {
    const text = 'Great coffee, but the queue on Saturdays is long and the prices went up. Staff are lovely though!';
    const first = enrich(review(text), 'en');
    clearAnalysisCache();
    expect(enrich(review(text), 'en')).toEqual(first);
    expect(enrich(review(text), 'en')).toEqual(first);
    expect(enrich(review('Super'), 'de')).toEqual(enrich(review('Super'), 'de'));
  });

  it('keeps the values the import gave and computes only the missing ones', () => {
    const given = review('Terrible service, cold food.', { language: 'en', sentiment: 0.9, sentimentLabel: 'POSITIVE', aiSummary: 'Mine', aiThemes: ['custom'] });
    expect(enrich(given, 'de')).toEqual({ language: 'en', sentiment: 0.9, sentimentLabel: 'POSITIVE', aiSummary: 'Mine', aiThemes: ['custom'] });
    // A given sentiment without a label: the label follows the given sentiment.
    expect(enrich(review('Terrible service, cold food.', { sentiment: 0.95 }), 'en')).toMatchObject({ sentiment: 0.95, sentimentLabel: 'POSITIVE' });
    expect(enrich(review('Terrible service, cold food.', { sentiment: 0.5 }), 'en').sentimentLabel).toBe('NEUTRAL');
    // force recomputes everything, language included.
    const forced = enrich(given, 'de', true);
    expect(forced.language).toBe('en');
    expect(forced.aiSummary).toBe('Terrible service, cold food.');
    expect(forced.sentiment).toBeLessThan(0.5);
  });

  it('gives an empty or very short text the default language and no sentiment, summary or themes', () => {
    for (const content of ['', '   ', 'ok', '👍👍', '<br/>', '!!! 123']) {
      expect(enrich(review(content), 'fr')).toEqual({ language: 'fr', sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] });
    }
  });

  it('takes the organization default for a text too short to detect, and analyses it in that language', () => {
    expect(enrich(review('Top!'), 'de').language).toBe('de');
    expect(enrich(review('Top!'), 'nl').language).toBe('nl');
    const great = enrich(review('Great!'), 'en');
    expect(great).toMatchObject({ language: 'en', sentimentLabel: 'POSITIVE', aiSummary: 'Great!' });
  });

  it('reads a very short text in the language its words belong to, or gives it no label: never a blind NEUTRAL 0.5 (issue 28, item 7)', () => {
    // Too short to detect, so the organization's default (English) is tried first; its words are not English.
    expect(enrich(review('Muy malo'), 'en')).toMatchObject({ sentimentLabel: 'NEGATIVE' });
    // No lexicon knows "super": no label, which CONTRACT §9 allows; never NEUTRAL.
    expect(enrich(review('Super!'), 'en')).toMatchObject({ sentiment: null, sentimentLabel: null });
    expect(enrich(review('Très bien.'), 'en')).toMatchObject({ sentimentLabel: 'POSITIVE' });
    expect(enrich(review('Geweldig!'), 'en')).toMatchObject({ sentimentLabel: 'POSITIVE' });
    expect(enrich(review('Schlecht.'), 'en')).toMatchObject({ sentimentLabel: 'NEGATIVE' });
    for (const text of ['Muy malo', 'Super!', 'Très bien.', 'Geweldig!']) expect(enrich(review(text), 'en').sentiment).not.toBe(0.5);
    // Nothing any lexicon can read: no sentiment at all rather than a made-up neutral.
    expect(enrich(review('Xylofon qwerty.'), 'en')).toMatchObject({ sentiment: null, sentimentLabel: null });
    // The same when the language is given: the text is too short to be sure of it.
    expect(enrich(review('Super!', { language: 'de' }), 'en')).toMatchObject({ sentiment: null, sentimentLabel: null });
    expect(enrich(review('Muy malo', { language: 'en' }), 'en')).toMatchObject({ sentimentLabel: 'NEGATIVE' });
    // The organization's own language still decides first.
    expect(enrich(review('Great!'), 'en')).toMatchObject({ language: 'en', sentimentLabel: 'POSITIVE' });
  });

  it('answers null sentiment for a language without a lexicon, and still summarizes it', () => {
    const out = enrich(review('スタッフの方がとても親切で、料理もすぐに出てきました。また来ます。'), 'en');
    expect(out).toMatchObject({ language: 'ja', sentiment: null, sentimentLabel: null, aiThemes: [] });
    expect(out.aiSummary).not.toBeNull();
  });

  it('reads through HTML-looking markup without ever returning it', () => {
    const out = enrich(review('<p>Excellent <b>service</b> &amp; friendly staff.</p><br/>Would come back!'), 'en');
    expect(out.aiSummary).not.toMatch(/[<>]|&amp;/);
    expect(out.aiThemes).toEqual(expect.arrayContaining(['service', 'staff']));
  });
});

describe('sentiment', () => {
  it('flips negated words and lets the clause after a contrast decide', () => {
    const s = (text: string, language: string) => scoreSentiment(plainText(text), language)!.sentiment;
    expect(s('not good', 'en')).toBeLessThan(s('good', 'en'));
    expect(s('not bad', 'en')).toBeGreaterThan(s('bad', 'en'));
    expect(s('Nicht schlecht.', 'de')).toBeGreaterThan(s('Schlecht.', 'de'));
    expect(s('Pas mal du tout.', 'fr')).toBeGreaterThan(s('Mal.', 'fr'));
    expect(s('The food was great, but the service was awful.', 'en')).toBeLessThan(s('The service was awful, but the food was great.', 'en'));
  });

  it('returns null for a language without a lexicon', () => {
    expect(scoreSentiment('Отличный сервис', 'ru')).toBeNull();
  });
});

describe('summary', () => {
  it('cuts a long sentence at a word boundary to 140 characters with an ellipsis', () => {
    const long = `${'The breakfast buffet had fresh fruit, warm pastries and excellent coffee every single morning of our stay '.repeat(3)}.`;
    const cut = cutAtWord(long);
    expect([...cut].length).toBeLessThanOrEqual(SUMMARY_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(long.startsWith(cut.slice(0, -1))).toBe(true);
    expect(long[cut.length - 1]).toBe(' ');
    expect(cutAtWord('短'.repeat(300)).length).toBeLessThanOrEqual(SUMMARY_MAX);
  });

  it('picks the most informative sentence, not the first', () => {
    const out = enrich(review('Wow. The staff were friendly and the rooms were spotless, with a great view over the harbour. Thanks!'), 'en');
    expect(out.aiSummary).toBe('The staff were friendly and the rooms were spotless, with a great view over the harbour.');
  });
});

describe('themes', () => {
  it('lists at most four, the most mentioned first', () => {
    const out = enrich(
      review('The delivery was late. The price was high, the delivery driver rude, the package damaged, the support slow, the food cold, the room dirty.'),
      'en',
    );
    expect(out.aiThemes.length).toBe(4);
    expect(out.aiThemes[0]).toBe('delivery');
  });
});
