/**
 * What the Overview's charts show, as data and as words: the answer of
 * GET /dashboard/api/overview, month labels, the platform palette, and the
 * summary sentence of each chart (its text alternative, beside its table).
 * No chart library here: this module is in the page's own script; the
 * drawing (uPlot) is loaded only when there is something to draw.
 */
import { formatDecimal, formatNumber } from '../../format.ts';

export interface OverviewData {
  totalReviews: number;
  averageRating: number | null;
  last30Days: number;
  last7Days: number;
  widgets: number;
  members: number;
  ratingDistribution: { rating: number | null; count: number }[];
  platforms: { platform: string; count: number; averageRating: number | null }[];
  /** The last 12 UTC calendar months, oldest first. */
  months: { month: string; count: number; averageRating: number | null; platforms: { platform: string; count: number }[] }[];
}

/**
 * Series colours: each at least 4.9:1 against the white card (WCAG 1.4.11 asks 3:1 for
 * graphics), told apart by more than hue (each line also has its own dash
 * pattern and point shape, and the legend names it).
 */
export const PALETTE = ['#1d4ed8', '#b45309', '#047857', '#7e22ce', '#be123c', '#374151', '#0e7490', '#4d7c0f'] as const;
/** Dash patterns, in the palette's order ([] = solid). */
export const DASHES: number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4], [1, 5], [12, 6], [6, 2, 2, 2]];

/** Months are UTC calendar months: labelled in the person's locale, in UTC so that the 1st never slides into the month before. */
const monthShort = new Intl.DateTimeFormat(undefined, { month: 'short', timeZone: 'UTC' });
const monthLong = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const monthYearShort = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' });

const firstOf = (month: string): Date => new Date(`${month}-01T00:00:00.000Z`);
export const monthLabel = (month: string): string => monthLong.format(firstOf(month));
/** Axis label: the short month, with the year on January and on the first month shown. */
export const axisLabel = (month: string, first: boolean): string => (first || month.endsWith('-01') ? monthYearShort.format(firstOf(month)) : monthShort.format(firstOf(month)));

/** Platform ids as people write them. */
const PLATFORM_NAMES: Record<string, string> = { GOOGLE: 'Google', YELP: 'Yelp', TRUSTPILOT: 'Trustpilot', G2: 'G2', CAPTERRA: 'Capterra', FACEBOOK: 'Facebook' };
export const platformName = (id: string): string => PLATFORM_NAMES[id] ?? id.charAt(0) + id.slice(1).toLowerCase();

export const ratingLabel = (rating: number | null): string => (rating === null ? 'No stars' : `${rating} star${rating === 1 ? '' : 's'}`);

/** The platforms of the monthly chart, in the server's order (most reviews in the window first). */
export const seriesPlatforms = (data: OverviewData): string[] => data.months[0]?.platforms.map((p) => p.platform) ?? [];

const plural = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

export function distributionSummary(data: OverviewData): string {
  const rated = data.ratingDistribution.filter((r) => r.rating !== null);
  const top = [...rated].sort((a, b) => b.count - a.count)[0];
  const unrated = data.ratingDistribution.find((r) => r.rating === null)?.count ?? 0;
  const parts = rated.map((r) => `${ratingLabel(r.rating)}: ${formatNumber(r.count)}`).join(', ');
  let text = `Of ${plural(data.totalReviews, 'review', 'reviews')}, ${parts}.`;
  if (top && top.count > 0) text += ` The most common rating is ${ratingLabel(top.rating)}.`;
  if (unrated > 0) text += ` ${plural(unrated, 'review has', 'reviews have')} no stars.`;
  return text;
}

export function monthlySummary(data: OverviewData): string {
  const total = data.months.reduce((n, m) => n + m.count, 0);
  const busiest = [...data.months].sort((a, b) => b.count - a.count)[0]!;
  const current = data.months.at(-1)!;
  const byPlatform = seriesPlatforms(data).map((p) => `${platformName(p)} ${formatNumber(data.months.reduce((n, m) => n + (m.platforms.find((x) => x.platform === p)?.count ?? 0), 0))}`);
  if (total === 0) return 'No reviews are dated in the last 12 months.';
  return (
    `${plural(total, 'review', 'reviews')} in the last 12 months (${byPlatform.join(', ')}). ` +
    `The busiest month was ${monthLabel(busiest.month)} with ${formatNumber(busiest.count)}; ${monthLabel(current.month)} so far has ${formatNumber(current.count)}.`
  );
}

export function averageSummary(data: OverviewData): string {
  const rated = data.months.filter((m) => m.averageRating !== null);
  if (rated.length === 0) return 'No rated reviews are dated in the last 12 months.';
  const first = rated[0]!;
  const last = rated.at(-1)!;
  const high = [...rated].sort((a, b) => b.averageRating! - a.averageRating!)[0]!;
  const low = [...rated].sort((a, b) => a.averageRating! - b.averageRating!)[0]!;
  const trend = last.averageRating! > first.averageRating! ? 'up from' : last.averageRating! < first.averageRating! ? 'down from' : 'the same as';
  return (
    `The average rating was ${formatDecimal(last.averageRating)} in ${monthLabel(last.month)}, ${trend} ${formatDecimal(first.averageRating)} in ${monthLabel(first.month)}. ` +
    `Highest: ${formatDecimal(high.averageRating)} (${monthLabel(high.month)}); lowest: ${formatDecimal(low.averageRating)} (${monthLabel(low.month)}).` +
    (rated.length < data.months.length ? ` ${plural(data.months.length - rated.length, 'month has', 'months have')} no rated review.` : '')
  );
}
