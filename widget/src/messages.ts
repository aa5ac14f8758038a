/**
 * The widget's words. Every language, English included, is a small JSON
 * catalog (EN here, the others in i18n/catalogs.ts, built to
 * dist/i18n-<hash>-<lang>.json) that the loader fetches for the page's
 * language (English for a language without one): no chunk carries words,
 * so a language costs nothing to pages in other languages.
 */

export interface Messages {
  /**
   * The catalog's language, written into each JSON file by the build (and set
   * on EN): absent, it is the language of the locale it was looked up by.
   */
  lang?: string;
  /** The visible title. */
  heading: string;
  /** "Reviews of {s}": the region's accessible name, {s} the subject. */
  reviewsOf: string;
  /** Plural forms by Intl.PluralRules category; `other` is required. */
  reviews: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
  /** "{n} hidden by the owner" (reviews hidden by moderation), plural forms as `reviews`. */
  hidden: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
  /** "{n} out of 5 stars" */
  stars: string;
  readMore: string;
  close: string;
  previous: string;
  next: string;
  pause: string;
  play: string;
  verified: string;
  /** "View on {p}" */
  viewOn: string;
  newTab: string;
  noReviews: string;
  /** "Page {n} of {m}" */
  page: string;
  /** "{n} of {m}" */
  slide: string;
  /** "Review by {name}" */
  reviewBy: string;
}

export const EN: Messages = {
  lang: 'en',
  heading: 'Customer reviews',
  reviewsOf: 'Reviews of {s}',
  reviews: { one: '{n} review', other: '{n} reviews' },
  hidden: { other: '{n} hidden by the owner' },
  stars: '{n} out of 5 stars',
  readMore: 'Read more',
  close: 'Close',
  previous: 'Previous reviews',
  next: 'Next reviews',
  pause: 'Pause automatic scrolling',
  play: 'Start automatic scrolling',
  verified: 'Verified',
  viewOn: 'View on {p}',
  newTab: '(opens in a new tab)',
  noReviews: 'No reviews yet',
  page: 'Page {n} of {m}',
  slide: '{n} of {m}',
  reviewBy: 'Review by {name}',
};

/** Fill {placeholders}; values are inserted as text, never markup. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
