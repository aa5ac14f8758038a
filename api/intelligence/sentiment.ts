/**
 * Sentiment of a review from the nlp.js lexicons of its language (see
 * languages.ts), scored sentence by sentence:
 * - a negator flips the next few words ("not good", "pas mal", "nicht
 *   schlecht") until the clause ends at punctuation;
 * - an intensifier ("very", "sehr") strengthens the next word;
 * - a contrast word ("but", "mais", "aber") halves what came before it in the
 *   sentence and weighs what follows by half again, so the clause a reviewer
 *   ends on decides a mixed sentence;
 * - emoji count the same in every language.
 * The sum is squashed into -1..1 (the VADER normalisation) and mapped to 0..1.
 * Deterministic: the same text and language always give the same figures.
 */
import type { SentimentLabel } from '../store/types.ts';
import { isSentimentLanguage, resources, type LanguageResources } from './languages.ts';
import { fold, sentences } from './text.ts';
import { topicStems } from './themes.ts';

/** Words after a negator that it flips, unless punctuation ends the clause first. */
const NEGATION_WINDOW = 4;
/** A negated word counts against its polarity, a little weaker ("not bad" is less than "good"). */
const NEGATION_FACTOR = -0.75;
const INTENSIFIER_FACTOR = 1.5;
const BEFORE_CONTRAST = 0.5;
const AFTER_CONTRAST = 1.5;
/** Larger: more evidence needed to approach 0 or 1. */
const SQUASH_ALPHA = 0.6;
/** `sentiment` at or above: POSITIVE; at or below 1 - this: NEGATIVE; between: NEUTRAL. */
export const POSITIVE_FROM = 0.6;

const EMOJI_POLARITY = new Map<string, number>([
  ...[...'😍😊🙂😀😃😄😁👍❤💯🎉⭐🥰😋👌🙏💕😻🤩✨💖🥳'].map((e) => [e, 0.6] as [string, number]),
  ...[...'😡😠👎😞😢😭🤮💩😤🙄😒😩😖🤬😕☹'].map((e) => [e, -0.6] as [string, number]),
]);

const TOKEN = /\p{L}+|[,;:()]|\p{Extended_Pictographic}/gu;
const EN_CONTRACTION = /n['’]t\b/g;

export interface SentimentResult {
  /** 0 (negative) to 1 (positive), 3 decimals. */
  sentiment: number;
  label: SentimentLabel;
}

export function labelFor(sentiment: number): SentimentLabel {
  if (sentiment >= POSITIVE_FROM) return 'POSITIVE';
  if (sentiment <= 1 - POSITIVE_FROM) return 'NEGATIVE';
  return 'NEUTRAL';
}

/** Which lexicons are read: both (the service), or one of them (the comparison in bench/intelligence). */
export type LexiconChoice = 'afinn+nlpjs' | 'afinn' | 'nlpjs';

/**
 * nlp.js values this weak are mostly noise for reviews (SentiCon English gives
 * "hour" +0.38 and "bad" +0.25): only clearer ones fill AFINN's gaps.
 */
const NLPJS_MIN = 0.3;
/**
 * Not for English: SentiCon's English stems score function words ("to" +0.38,
 * "export" +0.75), which the evaluation set showed as errors; English AFINN
 * has no gaps that matter as much.
 */
const NO_NLPJS_FALLBACK = new Set(['en']);

function lookup(token: string, r: LanguageResources, topics: Set<string>, lexicons: LexiconChoice): number | undefined {
  const stem = r.stem(token);
  if (topics.has(stem)) return undefined;
  if (lexicons === 'nlpjs') return r.lexicon.get(stem);
  const native = r.lexicon.get(stem);
  const strong = native !== undefined && Math.abs(native) >= NLPJS_MIN && !NO_NLPJS_FALLBACK.has(r.language) ? native : undefined;
  // The translated AFINN lists score some function words ("con" -1 in Spanish, "wurde" +0.5 in
  // German): a function word counts only when the language's own lexicon scores it too.
  if (r.stopwords.has(token) && strong === undefined && lexicons !== 'afinn') return undefined;
  const value = r.afinn.get(token) ?? r.afinnStems.get(stem);
  if (value !== undefined || lexicons === 'afinn') return value;
  return strong;
}

function scoreSentence(sentence: string, r: LanguageResources, topics: Set<string>, lexicons: LexiconChoice): { score: number; hits: number } {
  let before = 0;
  let after = 0;
  let contrasted = false;
  let hits = 0;
  let negated = 0;
  let intensify = 1;
  for (const m of sentence.matchAll(TOKEN)) {
    const token = m[0];
    const emoji = EMOJI_POLARITY.get(token);
    if (emoji !== undefined) {
      if (contrasted) after += emoji;
      else before += emoji;
      hits++;
      continue;
    }
    if (token.length === 1 && ',;:()'.includes(token)) {
      negated = 0;
      intensify = 1;
      continue;
    }
    if (r.negators.has(token)) {
      negated = NEGATION_WINDOW;
      continue;
    }
    if (r.contrasts.has(token)) {
      contrasted = true;
      negated = 0;
      continue;
    }
    if (r.intensifiers.has(token)) {
      intensify = INTENSIFIER_FACTOR;
      continue;
    }
    const value = lookup(token, r, topics, lexicons);
    if (value !== undefined && value !== 0) {
      const v = value * intensify * (negated > 0 ? NEGATION_FACTOR : 1);
      if (contrasted) after += v;
      else before += v;
      hits++;
    }
    intensify = 1;
    if (negated > 0) negated--;
  }
  return { score: contrasted ? before * BEFORE_CONTRAST + after * AFTER_CONTRAST : before, hits };
}

/** null for a language without a lexicon: no guess. `text` is plain text (text.ts). */
export function scoreSentiment(text: string, language: string, lexicons: LexiconChoice = 'afinn+nlpjs'): SentimentResult | null {
  return scoreSentimentFolded(fold(text), language, lexicons);
}

/** `folded` is plain text already folded (text.ts `fold`): enrichment folds a review once for all analysers. */
export function scoreSentimentFolded(folded: string, language: string, lexicons: LexiconChoice = 'afinn+nlpjs'): SentimentResult | null {
  if (!isSentimentLanguage(language)) return null;
  const r = resources(language);
  const text = language === 'en' ? folded.replace(EN_CONTRACTION, ' not') : folded;
  const topics = topicStems(language);
  let total = 0;
  for (const sentence of sentences(text)) total += scoreSentence(sentence, r, topics, lexicons).score;
  const compound = total / Math.sqrt(total * total + SQUASH_ALPHA);
  const sentiment = Math.round(((compound + 1) / 2) * 1000) / 1000;
  return { sentiment, label: labelFor(sentiment) };
}
