/**
 * Themes of a review: the taxonomy's words (taxonomy.ts) found in the text,
 * at most four, most salient first: the theme named most often leads, a tie
 * goes to the theme named first. Languages without word lists get none.
 */
import { isSentimentLanguage, resources, type SentimentLanguage } from './languages.ts';
import { THEME_WORDS, THEMES, type Theme } from './taxonomy.ts';
import { fold } from './text.ts';

export const MAX_THEMES = 4;

/** Words with inner hyphens stay one token ("petit-déjeuner", "user-friendly"). */
const WORD = /\p{L}+(?:-\p{L}+)*/gu;

interface Compiled {
  /** First stem of a phrase or single word → the phrases starting with it. */
  byFirst: Map<string, { stems: string[]; theme: Theme }[]>;
  /** Stems of the topic words: no opinion in them (sentiment.ts skips them). */
  topics: Set<string>;
}

const compiled = new Map<SentimentLanguage, Compiled>();

function compile(language: SentimentLanguage): Compiled {
  const { stem } = resources(language);
  const byFirst: Compiled['byFirst'] = new Map();
  const topics = new Set<string>();
  for (const theme of THEMES) {
    const [topicWords, cueWords] = THEME_WORDS[theme][language];
    for (const [list, isTopic] of [[topicWords, true], [cueWords, false]] as const) {
      for (const entry of list.split(' ').filter(Boolean)) {
        const stems = entry.split('_').map((w) => stem(fold(w)));
        if (isTopic && stems.length === 1) topics.add(stems[0]!);
        const first = stems[0]!;
        const list2 = byFirst.get(first) ?? [];
        list2.push({ stems, theme });
        byFirst.set(first, list2);
      }
    }
  }
  return { byFirst, topics };
}

function forLanguage(language: SentimentLanguage): Compiled {
  let c = compiled.get(language);
  if (!c) {
    c = compile(language);
    compiled.set(language, c);
  }
  return c;
}

export function topicStems(language: SentimentLanguage): Set<string> {
  return forLanguage(language).topics;
}

/** Whether a stem starts one of the taxonomy's words (for the summary's choice of sentence). */
export function isThemeStem(language: SentimentLanguage, stem: string): boolean {
  return forLanguage(language).byFirst.has(stem);
}

/** `text` is plain text (text.ts). */
export function findThemes(text: string, language: string): Theme[] {
  return findThemesFolded(fold(text), language);
}

/** `folded` is plain text already folded (text.ts `fold`): enrichment folds a review once for all analysers. */
export function findThemesFolded(folded: string, language: string): Theme[] {
  if (!isSentimentLanguage(language)) return [];
  const { stem } = resources(language);
  const { byFirst } = forLanguage(language);
  const stems: string[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(folded); m !== null; m = WORD.exec(folded)) stems.push(stem(m[0]));
  const found = new Map<Theme, { count: number; first: number }>();
  for (let i = 0; i < stems.length; i++) {
    const candidates = byFirst.get(stems[i]!);
    if (!candidates) continue;
    for (const { stems: phrase, theme } of candidates) {
      if (!startsAt(stems, i, phrase)) continue;
      const f = found.get(theme);
      if (f) f.count++;
      else found.set(theme, { count: 1, first: i });
    }
  }
  if (found.size === 0) return [];
  return [...found.entries()]
    .sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first)
    .slice(0, MAX_THEMES)
    .map(([theme]) => theme);
}

function startsAt(stems: string[], at: number, phrase: string[]): boolean {
  for (let k = 0; k < phrase.length; k++) if (stems[at + k] !== phrase[k]) return false;
  return true;
}
