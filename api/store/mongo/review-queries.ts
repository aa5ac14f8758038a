/**
 * Pure functions producing the MongoDB queries of the `reviews` collection, as
 * plain data (tested through mingo against the brute-force reference and the
 * embedded index, so both stores answer identically).
 *
 * Document mapping (`toDocument`/`fromDocument`): a review document is the
 * `Review` record with
 * - `date`, `createdAt`, `updatedAt` as BSON Dates (ISO strings in the API):
 *   real dates sort and compare correctly in any format the server sees;
 * - `sentimentE6`: `sentimentUnits(sentiment)` (an integer, or null), written
 *   with the review so the stats pipeline sums integers exactly like the
 *   embedded index does, instead of floating sums that differ by order;
 * - MongoDB's own `_id` (an ObjectId), never returned; `id` is the review id.
 */
import type { CreateIndexesOptions, Document, Filter, IndexSpecification } from 'mongodb';
import type { Review, ReviewQuery, StatsQuery } from '../types.ts';
import { dayWindow, sentimentUnits } from '../../reviews/stats-math.ts';

export interface ReviewDocument extends Omit<Review, 'date' | 'createdAt' | 'updatedAt'> {
  date: Date;
  createdAt: Date;
  updatedAt: Date;
  /** `sentimentUnits(sentiment)`: what the stats pipeline sums. */
  sentimentE6: number | null;
}

export function toDocument(review: Review): ReviewDocument {
  return {
    id: review.id,
    orgId: review.orgId,
    platform: review.platform,
    externalId: review.externalId,
    authorName: review.authorName,
    authorAvatar: review.authorAvatar,
    rating: review.rating,
    content: review.content,
    date: new Date(review.date),
    url: review.url,
    language: review.language,
    isVerified: review.isVerified,
    sentiment: review.sentiment,
    sentimentLabel: review.sentimentLabel,
    aiSummary: review.aiSummary,
    aiThemes: [...review.aiThemes],
    createdAt: new Date(review.createdAt),
    updatedAt: new Date(review.updatedAt),
    sentimentE6: review.sentiment === null ? null : sentimentUnits(review.sentiment),
  };
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : new Date(value).toISOString());

/** The Review of a stored document; `_id` and `sentimentE6` stay behind. */
export function fromDocument(doc: ReviewDocument): Review {
  return {
    id: doc.id,
    orgId: doc.orgId,
    platform: doc.platform,
    externalId: doc.externalId,
    authorName: doc.authorName,
    authorAvatar: doc.authorAvatar ?? null,
    rating: doc.rating ?? null,
    content: doc.content,
    date: iso(doc.date),
    url: doc.url ?? null,
    language: doc.language,
    isVerified: doc.isVerified,
    sentiment: doc.sentiment ?? null,
    sentimentLabel: doc.sentimentLabel ?? null,
    aiSummary: doc.aiSummary ?? null,
    aiThemes: doc.aiThemes ?? [],
    createdAt: iso(doc.createdAt),
    updatedAt: iso(doc.updatedAt),
  };
}

/** The integer star range a rating filter means: minRating 3.5 is 4 and up. */
export function ratingRange(q: Pick<ReviewQuery, 'minRating' | 'maxRating'>): { lo: number; hi: number } | null {
  if (q.minRating === undefined && q.maxRating === undefined) return null;
  return { lo: Math.max(1, Math.ceil(q.minRating ?? 1)), hi: Math.min(5, Math.floor(q.maxRating ?? 5)) };
}

/**
 * The filter of GET /reviews. An empty `platforms` list matches nothing.
 * A rating range never matches a null rating (MongoDB compares within a type).
 */
export function listFilter(q: Omit<ReviewQuery, 'limit' | 'offset'>): Filter<ReviewDocument> {
  const filter: Filter<ReviewDocument> = { orgId: q.orgId };
  if (q.platforms !== undefined) filter.platform = { $in: [...new Set(q.platforms)] };
  const range = ratingRange(q);
  if (range) filter.rating = { $gte: range.lo, $lte: range.hi };
  if (q.since !== undefined) filter.date = { $gt: q.since };
  if (q.language !== undefined) filter.language = q.language;
  return filter;
}

/** API order: date descending, then id descending. Served by the indexes below. */
export const listSort = { date: -1, id: -1 } as const;

export const reviewIndexes: { key: IndexSpecification; options: CreateIndexesOptions }[] = [
  { key: { orgId: 1, date: -1, id: -1 }, options: { name: 'org_date_id' } },
  { key: { orgId: 1, platform: 1, date: -1, id: -1 }, options: { name: 'org_platform_date_id' } },
  // Rating filters (minRating/maxRating, widgets' minimum stars): counted and paged from the index alone.
  { key: { orgId: 1, rating: 1, date: -1, id: -1 }, options: { name: 'org_rating_date_id' } },
  { key: { orgId: 1, platform: 1, rating: 1, date: -1, id: -1 }, options: { name: 'org_platform_rating_date_id' } },
  // The language filter: its reviews counted and paged from the index; platform and rating narrow within.
  { key: { orgId: 1, language: 1, date: -1, id: -1 }, options: { name: 'org_language_date_id' } },
  // The natural key of imports: re-importing updates, never duplicates.
  { key: { orgId: 1, platform: 1, externalId: 1 }, options: { name: 'org_platform_external', unique: true } },
];

/** Sum of `count` of the `$ratings` facet entries whose `_id` is `rating`. */
function ratingCount(rating: number | null): Document {
  return { $sum: { $map: { input: { $filter: { input: '$ratings', cond: { $eq: ['$$this._id', rating] } } }, in: '$$this.count' } } };
}

function windowCount(q: StatsQuery, days: number): Document[] {
  const { from, to } = dayWindow(q.now, days);
  return [{ $match: { date: { $gt: from, $lte: to } } }, { $count: 'n' }];
}

/**
 * One aggregation whose single output document is a `RawStats`
 * (see stats-math.ts); `finishStats` turns it into the Statistics object.
 */
export function statsPipeline(q: StatsQuery): Document[] {
  const match: Document = { orgId: q.orgId };
  if (q.platforms !== undefined) match.platform = { $in: [...new Set(q.platforms)] };
  const last = (facet: string): Document => ({ $ifNull: [{ $arrayElemAt: [`$${facet}.n`, 0] }, 0] });
  return [
    { $match: match },
    {
      $facet: {
        platforms: [
          {
            $group: {
              _id: '$platform',
              count: { $sum: 1 },
              ratedCount: { $sum: { $cond: [{ $isNumber: '$rating' }, 1, 0] } },
              ratingSum: { $sum: '$rating' },
              sentimentCount: { $sum: { $cond: [{ $isNumber: '$sentimentE6' }, 1, 0] } },
              sentimentSum: { $sum: '$sentimentE6' },
            },
          },
        ],
        ratings: [{ $group: { _id: '$rating', count: { $sum: 1 } } }],
        last30: windowCount(q, 30),
        last7: windowCount(q, 7),
      },
    },
    {
      $project: {
        _id: 0,
        totalReviews: { $sum: '$platforms.count' },
        ratedCount: { $sum: '$platforms.ratedCount' },
        ratingSum: { $sum: '$platforms.ratingSum' },
        sentimentCount: { $sum: '$platforms.sentimentCount' },
        sentimentSum: { $sum: '$platforms.sentimentSum' },
        last30Days: last('last30'),
        last7Days: last('last7'),
        platforms: {
          $map: {
            input: '$platforms',
            as: 'p',
            in: { platform: '$$p._id', count: '$$p.count', ratedCount: '$$p.ratedCount', ratingSum: '$$p.ratingSum' },
          },
        },
        starCounts: [1, 2, 3, 4, 5].map(ratingCount),
        unratedCount: ratingCount(null),
      },
    },
  ];
}
