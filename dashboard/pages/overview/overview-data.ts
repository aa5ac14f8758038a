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
  /** Reply rate and median time to reply of the last `days` days, per platform that shows replies with reviews in them. */
  replies: ReplyFigures;
}

export interface ReplyFigures {
  days: number;
  platforms: { platform: string; received: number; replied: number; medianReplyMs: number | null }[];
  medianReplyMs: number | null;
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
const PLATFORM_NAMES: Record<string, string> = { GOOGLE: 'Google', YELP: 'Yelp', TRUSTPILOT: 'Trustpilot', G2: 'G2', CAPTERRA: 'Capterra', FACEBOOK: 'Facebook', DIRECT: 'Your review page' };
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

/** A reply rate as people read it: 2 of 3 → "67%" (never asked for nothing received: such platforms are not listed). */
export const formatRate = (replied: number, received: number): string => `${Math.round((100 * replied) / received)}%`;

/** Units of a time to reply: the first whose limit the time is under (ms per unit, limit in ms). */
const DURATIONS: [Intl.NumberFormat, number, number][] = (
  [
    ['minute', 60_000, 3_600_000],
    ['hour', 3_600_000, 172_800_000],
    ['day', 86_400_000, Infinity],
  ] as const
).map(([unit, ms, below]) => [new Intl.NumberFormat(undefined, { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: 1 }), ms, below]);

/** A time to reply in the largest unit that reads well: "under a minute", "45 minutes", "6.5 hours", "12 days" (a tenth below 10). */
export function formatDuration(ms: number | null): string {
  if (ms === null) return 'none yet';
  if (ms < 60_000) return 'under a minute';
  const [format, per] = DURATIONS.find(([, , below]) => ms < below)!;
  const n = ms / per;
  return format.format(n < 10 ? Math.round(n * 10) / 10 : Math.round(n));
}

/** The reply figures in one sentence (the card's summary, read before its table). */
export function replySummary(r: ReplyFigures): string {
  if (r.platforms.length === 0) return `No reviews in the last ${r.days} days on Google, Trustpilot or your review page.`;
  const received = r.platforms.reduce((n, p) => n + p.received, 0);
  const replied = r.platforms.reduce((n, p) => n + p.replied, 0);
  return `In all: ${formatNumber(replied)} of ${formatNumber(received)} replied (${formatRate(replied, received)}), median time to reply ${formatDuration(r.medianReplyMs)}.`;
}
