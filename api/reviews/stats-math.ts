/**
 * The one place that turns raw review aggregates into the spec's Statistics
 * object (CONTRACT §3). Both stores produce a `RawStats` of integers (the
 * embedded index incrementally, MongoDB with one `$facet`) and call
 * `finishStats`, so their answers agree to the last digit.
 */
import type { PlatformStats, ReviewStats } from '../store/types.ts';

/**
 * Sentiment is summed as integers of this many units per 1.0: floating sums
 * drift under incremental add/remove and differ with summation order; integer
 * sums are exact (safe up to ~9e9 reviews at 1e6 units each).
 */
export const SENTIMENT_SCALE = 1_000_000;

/** A sentiment score (0-1) as the integer the aggregates sum. */
export function sentimentUnits(sentiment: number): number {
  return Math.round(sentiment * SENTIMENT_SCALE);
}

export interface RawPlatformStats {
  platform: string;
  count: number;
  ratedCount: number;
  /** Sum of the integer star ratings of the rated reviews. */
  ratingSum: number;
}

export interface RawStats {
  totalReviews: number;
  ratedCount: number;
  ratingSum: number;
  sentimentCount: number;
  /** Sum of `sentimentUnits(sentiment)` over reviews that have a sentiment. */
  sentimentSum: number;
  last30Days: number;
  last7Days: number;
  /** Any order; entries with count 0 are dropped. */
  platforms: RawPlatformStats[];
  /** Count per star rating: index 0 = 1 star ... index 4 = 5 stars. */
  starCounts: [number, number, number, number, number];
  unratedCount: number;
}

export function emptyRawStats(): RawStats {
  return {
    totalReviews: 0,
    ratedCount: 0,
    ratingSum: 0,
    sentimentCount: 0,
    sentimentSum: 0,
    last30Days: 0,
    last7Days: 0,
    platforms: [],
    starCounts: [0, 0, 0, 0, 0],
    unratedCount: 0,
  };
}

/**
 * numerator / denominator rounded half-up to 2 decimals, exactly: integer
 * arithmetic, so 4.125 becomes 4.13 (a float `Math.round(x * 100)` may not).
 */
export function roundRatio2(numerator: number, denominator: number): number {
  return Math.floor((200 * numerator + denominator) / (2 * denominator)) / 100;
}

export function finishStats(raw: RawStats): ReviewStats {
  const platforms: PlatformStats[] = raw.platforms
    .filter((p) => p.count > 0)
    .sort((a, b) => b.count - a.count || (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0))
    .map((p) => ({
      platform: p.platform,
      count: p.count,
      averageRating: p.ratedCount > 0 ? roundRatio2(p.ratingSum, p.ratedCount) : null,
    }));
  const ratingDistribution: ReviewStats['ratingDistribution'] = [5, 4, 3, 2, 1].map((rating) => ({
    rating,
    count: raw.starCounts[rating - 1] ?? 0,
  }));
  if (raw.unratedCount > 0) ratingDistribution.push({ rating: null, count: raw.unratedCount });
  return {
    totalReviews: raw.totalReviews,
    averageRating: raw.ratedCount > 0 ? roundRatio2(raw.ratingSum, raw.ratedCount) : null,
    averageSentiment: raw.sentimentCount > 0 ? roundRatio2(raw.sentimentSum, raw.sentimentCount * SENTIMENT_SCALE) : null,
    last30Days: raw.last30Days,
    last7Days: raw.last7Days,
    platforms,
    ratingDistribution,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The window of "the last N days": reviews with date in (from, to]. */
export function dayWindow(now: Date, days: number): { from: Date; to: Date } {
  return { from: new Date(now.getTime() - days * DAY_MS), to: now };
}
