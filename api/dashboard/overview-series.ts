/**
 * The Overview's series: the last 12 calendar months in UTC (the current one
 * last, partial), each with its reviews per platform and its average rating,
 * from the store's maintained month × platform aggregates (`ReviewStore.monthly`).
 */
import { roundRatio2 } from '../reviews/stats-math.ts';
import { addMonths, monthOf, monthsBetween } from '../reviews/months.ts';
import type { MonthlyCount } from '../store/types.ts';

/** How many months the charts show. */
export const SERIES_MONTHS = 12;

export interface MonthPoint {
  /** `YYYY-MM` (UTC). */
  month: string;
  count: number;
  /** Average star rating of the month's rated reviews, 2 decimals; null when none is rated. */
  averageRating: number | null;
  /** Reviews per platform this month, every platform of the window (0 included), in `platforms` order. */
  platforms: { platform: string; count: number }[];
}

/** The window of months for `now`: from 11 months before its UTC month to that month. */
export function seriesWindow(now: Date): { from: string; to: string } {
  const to = monthOf(now);
  return { from: addMonths(to, -(SERIES_MONTHS - 1)), to };
}

/** Platforms ordered by their reviews in the window (most first, then by name), so colours follow weight. */
export function buildSeries(rows: readonly MonthlyCount[], window: { from: string; to: string }): MonthPoint[] {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.platform, (totals.get(r.platform) ?? 0) + r.count);
  const platforms = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || (a < b ? -1 : 1));
  return monthsBetween(window.from, window.to).map((month) => {
    const of = rows.filter((r) => r.month === month);
    const rated = of.reduce((n, r) => n + r.ratedCount, 0);
    const sum = of.reduce((n, r) => n + r.ratingSum, 0);
    return {
      month,
      count: of.reduce((n, r) => n + r.count, 0),
      averageRating: rated > 0 ? roundRatio2(sum, rated) : null,
      platforms: platforms.map((platform) => ({ platform, count: of.find((r) => r.platform === platform)?.count ?? 0 })),
    };
  });
}
