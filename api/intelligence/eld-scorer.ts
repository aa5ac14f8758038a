/**
 * eld's language identification (Nito-ELD 2.1, its `small` n-gram database),
 * computed exactly as `eld.detect(text)` and `isReliable()` compute it, with
 * less work per call. Profiling the import showed eld at about half of
 * enrichment's time, most of it in per-call overheads rather than in the
 * scoring itself: the n-gram tables are objects walked with `for…in` and
 * string keys, and `isReliable()` builds, scales and sorts a list of all 60
 * languages to read its first two entries. Here the database is flattened
 * once into typed arrays, scores add up in a Float64Array, and the two best
 * languages are found in one pass. Same database, same tokenization (eld's
 * own separator pattern and byte dictionary), same arithmetic: the answers
 * are eld's, which eld-scorer.test.ts checks against `eld.detect` itself.
 *
 * The database and helpers are eld's own files, read from the installed
 * package (its `exports` map lists only the entry points, so they are
 * reached from the `eld/small` entry's location).
 */

interface NgramsData {
  languages: Record<string, string>;
  ngrams: Record<string, Record<string, number>>;
}

const entry = import.meta.resolve('eld/small');
async function eldFile<T>(file: string): Promise<T> {
  return (await import(new URL(file, entry).href)) as T;
}
const [{ ngramsData }, { dictionary }, { separators }, { avgScore }] = await Promise.all([
  eldFile<{ ngramsData: NgramsData }>('../ngrams/small.js'),
  eldFile<{ dictionary: string[] }>('../dictionary.js'),
  eldFile<{ separators: RegExp }>('../regexPatterns.js'),
  eldFile<{ avgScore: Record<string, number> }>('../avgScore.js'),
]);

/** eld stores each n-gram's score minus this, to keep its database small. */
const BASE_NGRAM_SCORE = 53;
/** eld's `orderAndScale`: raw score per n-gram → 0..1. */
const SCALE = 25;
/** eld's `isReliable()` default. */
const THRESHOLD_RATIO = 0.75;
/** Counts of languages per n-gram fit in the low bits of an index entry. */
const COUNT_BITS = 64;

const codes: string[] = Object.keys(ngramsData.languages).map((k) => ngramsData.languages[k]!);

/** n-gram → offset × COUNT_BITS + number of languages, into `langOf` and `pointsOf`. */
const index = new Map<string, number>();
let langOf = new Uint8Array(0);
let pointsOf = new Float64Array(0);

function flatten(): void {
  const entries = Object.entries(ngramsData.ngrams);
  let total = 0;
  for (const [, byLang] of entries) total += Object.keys(byLang).length;
  langOf = new Uint8Array(total);
  pointsOf = new Float64Array(total);
  let at = 0;
  for (const [ngram, byLang] of entries) {
    const start = at;
    // eld walks the languages in the same (ascending index) order.
    for (const lang in byLang) {
      langOf[at] = Number(lang);
      pointsOf[at] = byLang[lang]! + BASE_NGRAM_SCORE;
      at++;
    }
    index.set(ngram, start * COUNT_BITS + (at - start));
  }
}

const scores = new Float64Array(codes.length);
const seen = new Set<string>();

function addNgram(ngram: string): void {
  if (seen.has(ngram)) return;
  seen.add(ngram);
  const packed = index.get(ngram);
  if (packed === undefined) return;
  const start = Math.floor(packed / COUNT_BITS);
  const end = start + (packed % COUNT_BITS);
  for (let k = start; k < end; k++) {
    const lang = langOf[k]!;
    scores[lang] = scores[lang]! + pointsOf[k]!;
  }
}

/** eld's `strToUtf8Bytes`: words as strings of UTF-8 bytes spelled through eld's dictionary, cut after ~350 bytes. */
function utf8Words(str: string): string[] {
  let encoded = '';
  const words: string[] = [];
  let countBytes = 0;
  for (let ii = 0; ii < str.length; ii++) {
    let charCode = str.charCodeAt(ii);
    if (charCode < 0x80) {
      if (charCode === 32) {
        if (encoded !== '') {
          words.push(encoded);
          encoded = '';
        }
        if (countBytes > 350) break;
      } else {
        encoded += str[ii];
      }
      countBytes++;
    } else if (charCode < 0x800) {
      encoded += dictionary[0xc0 | (charCode >> 6)]! + dictionary[0x80 | (charCode & 0x3f)]!;
      countBytes += 2;
    } else if (charCode < 0xd800 || charCode >= 0xe000) {
      encoded += dictionary[0xe0 | (charCode >> 12)]! + dictionary[0x80 | ((charCode >> 6) & 0x3f)]! + dictionary[0x80 | (charCode & 0x3f)]!;
      countBytes += 3;
    } else {
      ii++;
      charCode = 0x10000 + (((charCode & 0x3ff) << 10) | (str.charCodeAt(ii) & 0x3ff));
      encoded +=
        dictionary[0xf0 | (charCode >> 18)]! + dictionary[0x80 | ((charCode >> 12) & 0x3f)]! + dictionary[0x80 | ((charCode >> 6) & 0x3f)]! + dictionary[0x80 | (charCode & 0x3f)]!;
      countBytes += 4;
    }
    if (countBytes > 380) break;
  }
  if (encoded !== '') words.push(encoded);
  return words;
}

export interface EldGuess {
  /** ISO 639-1 code, or '' when no n-gram matched. */
  language: string;
  /** eld's `isReliable()`. */
  reliable: boolean;
}

/** What `eld.detect(text)` answers (`language`, `isReliable()`), for the `small` database. */
export function eldDetect(text: string): EldGuess {
  if (index.size === 0) flatten();
  const cleaned = text.substring(0, 1000).replace(separators, ' ').trim().toLowerCase();
  seen.clear();
  scores.fill(0);
  for (const word of utf8Words(cleaned)) {
    const len = word.length > 70 ? 70 : word.length;
    let j = 0;
    for (; j + 4 < len; j += 3) addNgram((j === 0 ? ' ' : '') + word.substring(j, j + 4));
    addNgram(`${j === 0 ? ' ' : ''}${word.substring(len !== 3 ? len - 4 : 0)} `);
  }
  // eld's getMaxLang and the first two entries of its sorted results: the
  // scaled score grows with the raw one, and ties keep the lower index first.
  let best = -1;
  let second = -1;
  for (let i = 0; i < scores.length; i++) {
    const v = scores[i]!;
    if (!(v > 0)) continue;
    if (best === -1 || v > scores[best]!) {
      second = best;
      best = i;
    } else if (second === -1 || v > scores[second]!) {
      second = i;
    }
  }
  if (best === -1) return { language: '', reliable: false };
  const language = codes[best]!;
  const numNgrams = seen.size;
  if (numNgrams < 3) return { language, reliable: false };
  const ngramScore = scores[best]! / numNgrams;
  const top = ngramScore / (ngramScore + SCALE);
  // As eld 2.1 writes it: its "next score" is the runner-up's language index, not its score.
  const nextScore = second === -1 ? 0 : second;
  const reliable = !((avgScore[language] as number) * THRESHOLD_RATIO > top || 0.01 > Math.abs(top - nextScore));
  return { language, reliable };
}

/** Builds the flattened tables now (about 100 ms), rather than in the first detection. */
export function loadEld(): void {
  if (index.size === 0) flatten();
}
