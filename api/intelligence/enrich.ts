/**
 * Review intelligence (CONTRACT §9): the AI fields a review lacks, computed
 * in the service process, offline and deterministically:
 * `language` (language.ts), `sentiment` and `sentimentLabel` (sentiment.ts),
 * `aiThemes` (themes.ts), `aiSummary` (summary.ts). A value the import gave
 * is kept (null, and an empty `aiThemes`, count as not given), unless `force`.
 * A very short text (fewer than 3 letters: empty, "ok", only emoji) gets no
 * sentiment, label, summary or themes: there is nothing to read in it.
 * A text too short to detect its language ("Muy malo", "Geweldig!") is read
 * in its given language, else the organization's default, first; when no word of it is in
 * that lexicon, in the other lexicon languages (readAnywhere); when none reads
 * it, or they disagree, it gets no sentiment rather than a blind NEUTRAL 0.5.
 */
import type { SentimentLabel } from '../store/types.ts';
import { detectLanguage, MIN_DETECT_LETTERS } from './language.ts';
import { isSentimentLanguage, resources, SENTIMENT_LANGUAGES } from './languages.ts';
import { labelFor, scoreSentiment, scoreSentimentFolded, type SentimentResult } from './sentiment.ts';
import { summarize } from './summary.ts';
import { findThemes, findThemesFolded, isThemeStem } from './themes.ts';
import { fold, hasLetters, plainText } from './text.ts';

/** Fewer letters than this (Han, kana, Hangul count 3): a very short text. */
export const MIN_ANALYSIS_LETTERS = 3;

export interface AiFields {
  language: string;
  sentiment: number | null;
  sentimentLabel: SentimentLabel | null;
  aiSummary: string | null;
  aiThemes: string[];
}

/** What enrichment reads: the content and whatever AI fields are already known (`language` null = not given). */
export interface Enrichable extends Omit<AiFields, 'language'> {
  content: string;
  language: string | null;
}

type Analysis = Omit<AiFields, 'sentimentLabel'> & { computedLabel: SentimentLabel | null };

/**
 * Analyses of short texts, which repeat ("Great!", "Excellent service"), are
 * kept; a long text is almost never seen twice. Bounded: emptied when full.
 */
const CACHE_TEXT_MAX = 80;
const CACHE_ENTRIES = 20_000;
const cache = new Map<string, Analysis>();

/**
 * Load every language's lexicons and stemmer and the detector's tables now
 * (about a second of CPU), at start-up: loaded lazily, the first import of a
 * language would hold the event loop for that long.
 */
export function warmUp(): void {
  for (const language of SENTIMENT_LANGUAGES) {
    const text = WARM_UP_TEXT;
    scoreSentiment(text, language);
    findThemes(text, language);
  }
  detectLanguage(WARM_UP_TEXT, 'en');
}

const WARM_UP_TEXT = 'The staff were friendly and the food was good.';

/** Forget the cached analyses (benchmarks time the analysis itself). */
export function clearAnalysisCache(): void {
  cache.clear();
}

/** `withSentiment` false: the sentiment was given, so it is not computed (`sentiment` and `computedLabel` stay null). */
function analyse(content: string, language: string | null, defaultLanguage: string, withSentiment: boolean): Analysis {
  const key = content.length <= CACHE_TEXT_MAX ? `${language ?? ''}\u0000${defaultLanguage}\u0000${withSentiment ? 1 : 0}\u0000${content}` : null;
  if (key !== null) {
    const hit = cache.get(key);
    if (hit) return hit;
  }
  const text = plainText(content);
  const guess = language === null ? detectLanguage(text, defaultLanguage) : { language, detected: true };
  const lang = guess.language;
  let result: Analysis;
  if (!hasLetters(text, MIN_ANALYSIS_LETTERS)) {
    result = { language: lang, sentiment: null, computedLabel: null, aiSummary: null, aiThemes: [] };
  } else {
    // Folded once for both analysers.
    const folded = fold(text);
    let scored = withSentiment ? scoreSentimentFolded(folded, lang) : null;
    // The language is a guess (the default), or the text too short to tell: words it cannot read may be another language's.
    if (scored !== null && scored.hits === 0 && (!guess.detected || !hasLetters(text, MIN_DETECT_LETTERS))) scored = readAnywhere(folded, lang);
    result = {
      language: lang,
      sentiment: scored?.sentiment ?? null,
      computedLabel: scored?.label ?? null,
      aiSummary: summarize(text, salientWords(lang)),
      aiThemes: findThemesFolded(folded, lang),
    };
  }
  if (key !== null) {
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(key, result);
  }
  return result;
}

/**
 * A text the guessed language read nothing in: scored in every other lexicon
 * language; the first that reads it gives the figures when all that read it
 * agree on the label ("Super!" is positive in German, French and Dutch).
 * null when none reads it or they disagree: no sentiment is better than a guess.
 */
function readAnywhere(folded: string, tried: string): SentimentResult | null {
  let found: SentimentResult | null = null;
  for (const language of SENTIMENT_LANGUAGES) {
    if (language === tried) continue;
    const scored = scoreSentimentFolded(folded, language);
    if (scored === null || scored.hits === 0) continue;
    if (found !== null && found.label !== scored.label) return null;
    found ??= scored;
  }
  return found;
}

function salientWords(language: string): (word: string) => boolean {
  if (!isSentimentLanguage(language)) return () => false;
  const r = resources(language);
  return (word) => {
    const folded = fold(word);
    return r.afinn.has(folded) || isThemeStem(language, r.stem(folded));
  };
}

/** The review's AI fields with the missing ones (all of them with `force`) computed. */
export function enrich(review: Enrichable, defaultLanguage: string, force = false): AiFields {
  const given = force ? { language: null, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] } : review;
  if (given.language !== null && given.sentiment !== null && given.sentimentLabel !== null && given.aiSummary !== null && given.aiThemes.length > 0) {
    return { language: given.language, sentiment: given.sentiment, sentimentLabel: given.sentimentLabel, aiSummary: given.aiSummary, aiThemes: given.aiThemes };
  }
  const a = analyse(review.content, given.language, defaultLanguage, given.sentiment === null);
  const sentiment = given.sentiment ?? a.sentiment;
  // A label the import did not give follows the sentiment, whether given or computed.
  const sentimentLabel = given.sentimentLabel ?? (given.sentiment !== null ? labelFor(given.sentiment) : a.computedLabel);
  return {
    language: a.language,
    sentiment,
    sentimentLabel,
    aiSummary: given.aiSummary ?? a.aiSummary,
    aiThemes: given.aiThemes.length > 0 ? given.aiThemes : a.aiThemes,
  };
}
