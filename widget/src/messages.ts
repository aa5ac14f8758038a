/**
 * The widget's words. Numbers and dates are localized by Intl for any locale;
 * the labels are English for now: each added language costs about 250 bytes
 * of gzip in a bundle with a 12 KiB budget, so languages are added when a
 * customer needs them (add a table below and key it in `messagesFor`).
 */

export interface Messages {
  heading: string;
  /** Plural forms by Intl.PluralRules category; `other` is required. */
  reviews: Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
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
  heading: 'Customer reviews',
  reviews: { one: '{n} review', other: '{n} reviews' },
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

export function messagesFor(_locale: string): Messages {
  return EN;
}

/** Fill {placeholders}; values are inserted as text, never markup. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
