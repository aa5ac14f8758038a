/** Locale-aware formatting: everything a visitor reads that is not a review. */
import { fill, type Messages } from './messages.ts';
import { displayRating } from './rating-display.ts';
import type { Replies } from './reply.ts';

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
  /**
   * The replies' parts (reply.ts), signed by this widget's organization: set
   * only when the widget shows replies and its data carries one, by the
   * framed chunk once the replies' chunk is in (the server: widget.tsx).
   */
  replies?: Replies;
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
 * `messages` are the catalog of the locale's language, or English's
 * (messages.ts EN) for a language without one. Numbers and dates follow the
 * same language as the labels, so a page never mixes two.
 */
export function formatter(locale: string, now: number, messages: Messages): Formatter {
  const own = locale.split('-')[0]!.toLowerCase();
  const lang = messages.lang ?? own;
  const tag = lang === own ? locale : 'en';
  return {
    locale: tag,
    lang,
    rtl: RTL_LANGUAGES.includes(lang),
    t: messages,
    now,
    number: (digits, fixed) =>
      cached(`n${tag}${digits}${fixed}`, () => new Intl.NumberFormat(tag, { maximumFractionDigits: digits, minimumFractionDigits: fixed ? digits : 0 })),
    // Made when first read: the page's first Intl object loads the browser's locale data, which a
    // mount does in a task of its own (warmUp), and the badge never needs the relative dates.
    get relative() {
      return cached(`r${tag}`, () => new Intl.RelativeTimeFormat(tag, { numeric: 'auto' }));
    },
    get plural() {
      return cached(`p${tag}`, () => new Intl.PluralRules(tag));
    },
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

/** An average rating as people read it: "4.2" for 4.15 (rating-display.ts), "4,2" in German. */
export function formatAverage(average: number, f: Formatter): string {
  return formatNumber(displayRating(average), f, 1, true);
}

/** "4.15 out of 5 stars": the exact value (two decimals at most), for assistive technology. */
export function starsLabel(rating: number, f: Formatter): string {
  return fill(f.t.stars, { n: formatNumber(rating, f, 2) });
}
