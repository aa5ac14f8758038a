/**
 * The review page's language: the widget's 22 (widget/src/i18n), chosen by
 * `?lang=` or else the browser's Accept-Language, English otherwise.
 */
import { EN } from '../../widget/src/messages.ts';
import { CATALOGS } from '../../widget/src/i18n/catalogs.ts';
import { REVIEW_PAGE_CATALOGS, REVIEW_PAGE_EN, type ReviewPageMessages } from '../../widget/src/i18n/review-page.ts';

export const PAGE_LANGUAGES: readonly string[] = ['en', ...Object.keys(CATALOGS)].sort();
const RTL = new Set(['ar', 'he']);

export interface PageWords {
  m: ReviewPageMessages;
  /** The widget's "{n} out of 5 stars". */
  stars: string;
  lang: string;
  dir: 'ltr' | 'rtl';
}

export function pageMessages(language: string): PageWords {
  const lang = PAGE_LANGUAGES.includes(language) ? language : 'en';
  return {
    m: REVIEW_PAGE_CATALOGS[lang] ?? REVIEW_PAGE_EN,
    stars: CATALOGS[lang]?.stars ?? EN.stars,
    lang,
    dir: RTL.has(lang) ? 'rtl' : 'ltr',
  };
}

/** `?lang=` when it names one of the languages, else the first of Accept-Language's that does (by q), else English. */
export function chooseLanguage(override: unknown, acceptLanguage: string | undefined): string {
  if (typeof override === 'string') {
    const base = override.toLowerCase().split('-')[0]!;
    if (PAGE_LANGUAGES.includes(base)) return base;
  }
  if (acceptLanguage) {
    const ranked = acceptLanguage
      .slice(0, 500)
      .split(',')
      .map((part, i) => {
        const [tag, ...params] = part.trim().split(';');
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        return { base: (tag ?? '').toLowerCase().split('-')[0]!, q: q ? Number(q.slice(2)) : 1, i };
      })
      .filter((r) => Number.isFinite(r.q) && r.q > 0)
      .sort((a, b) => b.q - a.q || a.i - b.i);
    for (const r of ranked) if (PAGE_LANGUAGES.includes(r.base)) return r.base;
  }
  return 'en';
}

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (all, key: string) => values[key] ?? all);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
