/**
 * eld-scorer.ts must answer exactly what eld answers (language and
 * isReliable()) for the same text: checked against `eld.detect` itself over
 * the evaluation set's texts, their prefixes, mixtures of two languages and
 * edge cases (empty, punctuation only, emoji, one long word, URLs, digits).
 */
import { eld } from 'eld/small';
import { describe, expect, it } from 'vitest';
import { loadEvalSet } from '../../bench/intelligence/eval-set.ts';
import { eldDetect } from './eld-scorer.ts';
import { plainText } from './text.ts';

function texts(): string[] {
  const base = loadEvalSet().map((r) => plainText(r.text));
  const out: string[] = ['', ' ', '!!!', 'a', 'ab', 'abc', 'x'.repeat(400), '😀😀 🎉', 'Ok', 'https://example.com/a?b=1 1234 mail@example.com', "don't won’t l'été"];
  for (const t of base) {
    out.push(t);
    for (const n of [5, 13, 20, 40, 80]) out.push(t.slice(0, n));
  }
  let seed = 11;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let i = 0; i < 1500; i++) {
    const a = base[Math.floor(rnd() * base.length)]!;
    const b = base[Math.floor(rnd() * base.length)]!;
    out.push(`${a.slice(0, 1 + Math.floor(rnd() * 60))} ${b.slice(Math.floor(rnd() * 30))}`);
  }
  return out;
}

describe('eldDetect', () => {
  it('answers what eld.detect answers, language and reliability, for every text', () => {
    const all = texts();
    expect(all.length).toBeGreaterThan(3000);
    const differing = all.filter((t) => {
      const theirs = eld.detect(t);
      const ours = eldDetect(t);
      return theirs.language !== ours.language || theirs.isReliable() !== ours.reliable;
    });
    expect(differing).toEqual([]);
  });

  it('is deterministic across calls (no state carried from one text to the next)', () => {
    const a = 'Das Essen war hervorragend und der Service sehr freundlich.';
    const first = eldDetect(a);
    eldDetect('Le personnel était très aimable et la chambre propre.');
    expect(eldDetect(a)).toEqual(first);
    expect(first).toEqual({ language: 'de', reliable: true });
  });
});
