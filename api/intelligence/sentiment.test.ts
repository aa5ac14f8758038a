/**
 * The scorer's rules, one by one, as behaviour (README "Review
 * intelligence"): what each rule does to a sentence, never accuracy figures.
 */
import { describe, expect, it } from 'vitest';
import { scoreSentiment } from './sentiment.ts';

const score = (text: string, language: string): number => scoreSentiment(text, language)!.sentiment;

describe('scoreSentiment rules', () => {
  it('flips an opinion word after a negator, and a German or Dutch one just before a trailing negator', () => {
    expect(score('The food was good.', 'en')).toBeGreaterThan(0.5);
    expect(score('The food was not good.', 'en')).toBeLessThan(0.5);
    expect(score('Ich kann es empfehlen.', 'de')).toBeGreaterThan(0.5);
    expect(score('Ich empfehle es nicht.', 'de')).toBeLessThan(0.5);
    // Too far before the negator, or in another clause: not negated.
    expect(score('Die Kellnerin war unhöflich und das WLAN ging nie.', 'de')).toBeLessThan(0.5);
    // English negation comes before the word: a trailing one flips nothing.
    expect(score('The food was excellent and nothing else matters.', 'en')).toBeGreaterThan(0.5);
  });

  it('ends a negator’s reach at a coordinating conjunction as at punctuation', () => {
    // Without the rule "nice" would be in "not"'s four-word reach, as in the second sentence.
    expect(score('The room was not clean and nice.', 'en')).toBeGreaterThan(score('The room was not clean and not nice.', 'en') + 0.05);
  });

  it('weakens a word after a diminisher and strengthens it after an intensifier', () => {
    const plain = score('The price is high and the room is nice.', 'en');
    expect(score('The price is high and the room is very nice.', 'en')).toBeGreaterThan(plain);
    expect(score('The price is high and the room is slightly nice.', 'en')).toBeLessThan(plain);
  });

  it('reads a sentence whose clause after "but" has no opinion word as mixed', () => {
    expect(score('The food was good, but the service was slow.', 'en')).toBe(0.5);
    expect(score('Das Essen war gut, aber der Service langsam.', 'de')).toBe(0.5);
    // With an opinion after "but", that clause leads.
    expect(score('The food was good, but the service was terrible.', 'en')).toBeLessThan(0.4);
  });

  it('pulls a review with a lukewarm verdict word towards neutral', () => {
    const without = score('Good food, friendly staff.', 'en');
    const withVerdict = score('Good food, friendly staff. Mixed feelings overall.', 'en');
    expect(Math.abs(withVerdict - 0.5)).toBeLessThan(Math.abs(without - 0.5));
    expect(Math.abs(score('Leckeres Essen, durchwachsen.', 'de') - 0.5)).toBeLessThan(Math.abs(score('Leckeres Essen.', 'de') - 0.5));
  });
});
