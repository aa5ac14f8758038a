/** Locale-aware formatting: everything a visitor reads that is not a review. */
import { EN, fill, type Messages } from './messages.ts';

export interface Formatter {
  /** BCP 47 tag used for numbers and dates, e.g. fr-FR. */
  locale: string;
  /** Its language subtag, e.g. fr. */
  lang: string;
  /** Whether the language is written right to left. */
  rtl: boolean;
  t: Messages;
  /** Reference time for relative dates, ms. */
  now: number;
  number(digits: number, fixed: boolean): Intl.NumberFormat;
  relative: Intl.RelativeTimeFormat;
  plural: Intl.PluralRules;
}

/** Languages of the catalogs written right to left: dir="rtl", mirrored arrows. */
export const RTL_LANGUAGES = ['ar', 'he'];

/**
 * Intl objects are costly to build (each one loads locale data): one of each
 * per locale and option set for the page's lifetime, shared by every widget.
 */
const cache = new Map<string, object>();
function cached<T extends object>(key: string, make: () => T): T {
  let value = cache.get(key) as T | undefined;
  if (!value) cache.set(key, (value = make()));
  return value;
}

/**
 * `messages` are the page language's catalog (null: English). Numbers and
 * dates follow the same language as the labels, so a page never mixes two.
 */
export function formatter(locale: string, now: number, messages: Messages | null = null): Formatter {
  const lang = messages ? locale.split('-')[0]!.toLowerCase() : 'en';
  const tag = messages || lang === locale.split('-')[0]!.toLowerCase() ? locale : 'en';
  return {
    locale: tag,
    lang,
    rtl: RTL_LANGUAGES.includes(lang),
    t: messages ?? EN,
    now,
    number: (digits, fixed) =>
      cached(`n${tag}${digits}${fixed}`, () => new Intl.NumberFormat(tag, { maximumFractionDigits: digits, minimumFractionDigits: fixed ? digits : 0 })),
    relative: cached(`r${tag}`, () => new Intl.RelativeTimeFormat(tag, { numeric: 'auto' })),
    plural: cached(`p${tag}`, () => new Intl.PluralRules(tag)),
  };
}

/**
 * The first valid BCP 47 tag of: the widget's locale option, the host page's
 * <html lang>, the browser's language; else English. Intl itself falls back
 * for valid tags it has no data for.
 */
export function resolveLocale(...candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    try {
      if (candidate) return Intl.getCanonicalLocales(candidate)[0]!;
    } catch {
      // Not a BCP 47 tag: try the next one.
    }
  }
  return 'en';
}

/** Seconds per unit, largest first. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31536000],
  ['month', 2592000],
  ['week', 604800],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 weeks ago", "yesterday", "vor 2 Monaten"; '' for an unparsable date. */
export function relativeDate(iso: string, f: Formatter): string {
  const seconds = (Date.parse(iso) - f.now) / 1000;
  if (Number.isNaN(seconds)) return '';
  const [unit, size] = UNITS.find(([, size]) => Math.abs(seconds) >= size) ?? ['second', 1];
  return f.relative.format(Math.trunc(seconds / size), unit);
}

/** A number with at most `digits` decimals (exactly `digits` when `fixed`): 4.7, "4,7" in German. */
export function formatNumber(value: number, f: Formatter, digits = 0, fixed = false): string {
  return f.number(digits, fixed).format(value);
}

/** "312 reviews" (or with `forms`, "2 hidden by the owner"), pluralized and with grouped digits. */
export function reviewCount(count: number, f: Formatter, forms = f.t.reviews): string {
  return fill(forms[f.plural.select(count)] ?? forms.other, { n: formatNumber(count, f) });
}

/** "312 reviews", then " · 2 hidden by the owner" when the owner hid any (moderation with disclosure). */
export const countLine = ({ totalReviews, hiddenReviews }: { totalReviews: number; hiddenReviews?: number }, f: Formatter): string =>
  reviewCount(totalReviews, f) + (hiddenReviews ? ` · ${reviewCount(hiddenReviews, f, f.t.hidden)}` : '');

/** "4.5 out of 5 stars" */
export function starsLabel(rating: number, f: Formatter): string {
  return fill(f.t.stars, { n: formatNumber(rating, f, 1) });
}

const LETTER = /[\p{L}\p{N}]/u;

/** Up to two letters, from the first and the last word; '?' when there are none. */
export function initials(name: string): string {
  const words = name.split(/\s+/).filter((w) => LETTER.test(w));
  const first = (w = ''): string => (Array.from(w).find((c) => LETTER.test(c)) ?? '').toLocaleUpperCase();
  return first(words[0]) + (words.length > 1 ? first(words[words.length - 1]) : '') || '?';
}
