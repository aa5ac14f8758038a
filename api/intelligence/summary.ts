/**
 * The extractive summary: the review's most informative sentence, in the
 * reviewer's own words, cut at a word boundary to 140 characters. Informative
 * = the most distinct words of four letters or more (short function words
 * carry little), plus the theme and opinion words it holds; a tie goes to
 * the earlier sentence. Never rewritten, never invented.
 */
import { sentences } from './text.ts';

export const SUMMARY_MAX = 140;
const ELLIPSIS = '…';
const LONG_WORD = /\p{L}{4,}/gu;
const DENSE_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

function informativeness(sentence: string, salient: (word: string) => boolean): number {
  const words = new Set(Array.from(sentence.toLowerCase().matchAll(LONG_WORD), (m) => m[0]));
  let score = words.size;
  for (const w of words) if (salient(w)) score += 2;
  // Scripts without spaces: characters stand for words.
  score += (sentence.match(DENSE_CHAR)?.length ?? 0) / 2;
  return score;
}

/** At most `max` characters, ending at a word boundary, with an ellipsis when cut. */
export function cutAtWord(text: string, max = SUMMARY_MAX): string {
  if (text.length <= max) return text;
  // Counted in code points (an emoji is one character), without splitting the text into an array.
  let headEnd = -1;
  let end = 0;
  let count = 0;
  while (end < text.length && count < max) {
    if (count === max - ELLIPSIS.length) headEnd = end;
    const c = text.charCodeAt(end);
    end += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    count++;
  }
  if (end >= text.length) return text;
  const head = text.slice(0, headEnd);
  const space = head.search(/\s\S*$/);
  // No space in reach (CJK, one very long word): cut between characters.
  const cut = space > 0 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:–—-]+$/u, '')}${ELLIPSIS}`;
}

/** `text` is plain text (text.ts); `salient` tells theme and opinion words. Null when no sentence has a letter. */
export function summarize(text: string, salient: (word: string) => boolean = () => false): string | null {
  const all = sentences(text);
  if (all.length <= 1) return all[0] === undefined ? null : cutAtWord(all[0]);
  let best: string | null = null;
  let bestScore = -1;
  for (const s of all) {
    const score = informativeness(s, salient);
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best === null ? null : cutAtWord(best);
}
