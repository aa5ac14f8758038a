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
/** German and Dutch: a negator with no opinion word after it negates one at most this many words before it. */
const NEGATED_BEFORE = 3;
/** A negated word counts against its polarity, a little weaker ("not bad" is less than "good"). */
const NEGATION_FACTOR = -0.75;
const INTENSIFIER_FACTOR = 1.5;
const DIMINISHER_FACTOR = 0.5;
const LUKEWARM_FACTOR = 0.25;
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
  /** Opinion words and emoji read: 0 means the lexicon found nothing to judge (the score is a blind 0.5). */
  hits: number;
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

interface SentenceScore {
  score: number;
  hits: number;
  /** Lukewarm verdict words seen ("mixed", "mitigé"). */
  lukewarm: number;
}

function scoreSentence(sentence: string, r: LanguageResources, topics: Set<string>, lexicons: LexiconChoice): SentenceScore {
  let before = 0;
  let after = 0;
  let afterHits = 0;
  let contrasted = false;
  let hits = 0;
  let lukewarm = 0;
  let negated = 0;
  let weight = 1;
  // A negator still waiting for its word, and the last opinion word of the clause before it (negationAfterVerb).
  let negatorPending = false;
  let lastInClause = 0;
  let sinceLast = 0;
  const add = (v: number): void => {
    if (contrasted) {
      after += v;
      afterHits++;
    } else before += v;
    hits++;
  };
  const endClause = (): void => {
    if (negatorPending && r.negationAfterVerb && lastInClause !== 0) add(lastInClause * NEGATION_FACTOR - lastInClause);
    negatorPending = false;
    lastInClause = 0;
    negated = 0;
    weight = 1;
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(sentence); m !== null; m = TOKEN.exec(sentence)) {
    const token = m[0];
    const emoji = EMOJI_POLARITY.get(token);
    if (emoji !== undefined) {
      add(emoji);
      continue;
    }
    if (token.length === 1 && ',;:()'.includes(token)) {
      endClause();
      continue;
    }
    sinceLast++;
    if (r.negators.has(token)) {
      // Only a word just before can be the one a trailing negator negates ("empfehle ich nicht").
      if (sinceLast > NEGATED_BEFORE) lastInClause = 0;
      negated = NEGATION_WINDOW;
      negatorPending = true;
      continue;
    }
    if (r.clauseJoiners.has(token)) {
      endClause();
      continue;
    }
    if (r.contrasts.has(token)) {
      endClause();
      contrasted = true;
      continue;
    }
    if (r.intensifiers.has(token)) {
      weight = INTENSIFIER_FACTOR;
      continue;
    }
    if (r.diminishers.has(token)) {
      weight = DIMINISHER_FACTOR;
      continue;
    }
    if (r.lukewarm.has(token)) {
      lukewarm++;
      weight = 1;
      continue;
    }
    const value = lookup(token, r, topics, lexicons);
    if (value !== undefined && value !== 0) {
      const v = value * weight * (negated > 0 ? NEGATION_FACTOR : 1);
      add(v);
      // Already negated words are not negated again by a later negator.
      lastInClause = negated > 0 ? 0 : v;
      sinceLast = 0;
      negatorPending = false;
    }
    weight = 1;
    if (negated > 0) negated--;
  }
  endClause();
  if (!contrasted) return { score: before, hits, lukewarm };
  // After "but" the reviewer turns to the other side. When nothing after it
  // can be read ("good, but the service was slow"), the sentence is mixed, not
  // what came before it.
  return { score: afterHits > 0 ? before * BEFORE_CONTRAST + after * AFTER_CONTRAST : 0, hits, lukewarm };
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
  let lukewarm = 0;
  let hits = 0;
  for (const sentence of sentences(text)) {
    const scored = scoreSentence(sentence, r, topics, lexicons);
    total += scored.score;
    lukewarm += scored.lukewarm;
    hits += scored.hits + scored.lukewarm;
  }
  // A stated lukewarm verdict ("mixed", "durchwachsen") outweighs most of what the words around it say.
  if (lukewarm > 0) total *= LUKEWARM_FACTOR;
  const compound = total / Math.sqrt(total * total + SQUASH_ALPHA);
  const sentiment = Math.round(((compound + 1) / 2) * 1000) / 1000;
  return { sentiment, label: labelFor(sentiment), hits };
}
