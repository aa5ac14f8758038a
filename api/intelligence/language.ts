/**
 * Language identification with eld (Nito-ELD, pure JavaScript n-gram
 * detector, no install script, its database ships in the package). Chosen
 * over tinyld and franc-min by the evaluation in bench/intelligence (README,
 * "Review intelligence"): more accurate on review texts and several times
 * faster. The `small` database scored the same as `medium` and `large` on the
 * evaluation set and is the quickest of those that did. eld's answers are
 * computed by eld-scorer.ts, which gives the same answers with less work.
 */
import { eldDetect } from './eld-scorer.ts';
import { hasLetters } from './text.ts';

/**
 * Below this many letters (a Han, kana or Hangul character counts as 3) a
 * text is too short to tell apart closely related languages ("Top!", "Super",
 * "Ok"): the organization's default language is used instead.
 */
export const MIN_DETECT_LETTERS = 12;
/** Detection reads the start of the text only: more adds time, not accuracy. */
const DETECT_CHARS = 80;

export interface LanguageGuess {
  language: string;
  /** false: the text was too short or the detector unsure, and `language` is the fallback. */
  detected: boolean;
}

/** `text` must already be plain (see text.ts); `fallback` is the organization's default language. */
export function detectLanguage(text: string, fallback: string): LanguageGuess {
  if (!hasLetters(text, MIN_DETECT_LETTERS)) return { language: fallback, detected: false };
  const result = eldDetect(text.length > DETECT_CHARS ? text.slice(0, DETECT_CHARS) : text);
  // isReliable(): enough n-grams and a clear enough lead over the runner-up.
  if (!/^[a-z]{2}$/.test(result.language) || !result.reliable) return { language: fallback, detected: false };
  return { language: result.language, detected: true };
}
