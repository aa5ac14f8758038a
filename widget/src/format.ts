/** Locale-aware formatting: everything a visitor reads that is not a review. */
import { fill, messagesFor, type Messages } from './messages.ts';

export interface Formatter {
  locale: string;
  t: Messages;
  /** Reference time for relative dates, ms. */
  now: number;
}

export function formatter(locale: string, now: number): Formatter {
  return { locale, t: messagesFor(locale), now };
}

/**
 * The widget's locale if it is a valid BCP 47 tag, else the browser's, else
 * English. Intl itself falls back for valid tags it has no data for.
 */
export function resolveLocale(preferred: string | null, browser: string | undefined): string {
  for (const candidate of [preferred, browser]) {
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
  return new Intl.RelativeTimeFormat(f.locale, { numeric: 'auto' }).format(Math.trunc(seconds / size), unit);
}

/** A number with at most `digits` decimals (exactly `digits` when `fixed`): 4.7, "4,7" in German. */
export function formatNumber(value: number, f: Formatter, digits = 0, fixed = false): string {
  return new Intl.NumberFormat(f.locale, { maximumFractionDigits: digits, minimumFractionDigits: fixed ? digits : 0 }).format(value);
}

/** "312 reviews", pluralized and with grouped digits. */
export function reviewCount(count: number, f: Formatter): string {
  const reviews = f.t.reviews;
  return fill(reviews[new Intl.PluralRules(f.locale).select(count)] ?? reviews.other, { n: formatNumber(count, f) });
}

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
