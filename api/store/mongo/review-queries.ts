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
 * - `_id`: the natural key `reviewKey(orgId, platform, externalId)`, never
 *   returned (`id` is the review id). Imports upsert by `_id`, the one key every
 *   server finds without a scan: an upsert filtered on other fields scans the
 *   collection on FerretDB (~94 ms each at 1,500 documents, against ~1.5 ms).
 */
import type { CreateIndexesOptions, Document, Filter, IndexSpecification } from 'mongodb';
import type { ReplyFiguresQuery, Review, ReviewQuery, StatsQuery } from '../types.ts';
import { REPLY_PLATFORMS, REPLY_WINDOW_DAYS } from '../../reviews/reply-figures.ts';
import { dayWindow, emptyRawStats, sentimentUnits, type RawStats } from '../../reviews/stats-math.ts';

export interface ReviewDocument extends Omit<Review, 'date' | 'createdAt' | 'updatedAt' | 'reply'> {
  _id: string;
  /** Absent on reviews stored before replies were collected: none. */
  reply?: { text: string; date: Date } | null;
  date: Date;
  createdAt: Date;
  updatedAt: Date;
  /** `sentimentUnits(sentiment)`: what the stats pipeline sums. */
  sentimentE6: number | null;
}

/**
 * The `_id` of a review: unambiguous because organization ids and platform
 * ids never hold "/" (platforms are letters, digits and _; ids come from newId).
 */
export function reviewKey(orgId: string, platform: string, externalId: string): string {
  return `${orgId}/${platform}/${externalId}`;
}

export function toDocument(review: Review): ReviewDocument {
  const doc: ReviewDocument = {
    _id: reviewKey(review.orgId, review.platform, review.externalId),
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
    productId: review.productId ?? null,
    reply: review.reply ? { text: review.reply.text, date: new Date(review.reply.date) } : null,
  };
  // Absent, not null, when no source collected it: an upsert's `$set` then keeps the stored one.
  if (review.sourceId !== undefined) doc.sourceId = review.sourceId;
  return doc;
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : new Date(value).toISOString());

/** The Review of a stored document; `_id` and `sentimentE6` stay behind. */
export function fromDocument(doc: ReviewDocument): Review {
  const review: Review = {
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
    // Reviews stored before they could name a product are about none.
    productId: doc.productId ?? null,
    reply: doc.reply ? { text: doc.reply.text, date: iso(doc.reply.date) } : null,
  };
  if (typeof doc.sourceId === 'string') review.sourceId = doc.sourceId;
  return review;
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
  if (q.productId !== undefined) filter.productId = q.productId;
  if (q.awaitingReply === true) {
    // Only platforms that show replies, and no reply: `reply.date` null matches a null or absent `reply` (reviews stored before replies were collected).
    const platforms = (q.platforms === undefined ? REPLY_PLATFORMS : [...new Set(q.platforms)]).filter((p) => REPLY_PLATFORMS.includes(p));
    filter.platform = { $in: platforms };
    (filter as Document)['reply.date'] = null;
  }
  if (q.sourceIds !== undefined) filter.sourceId = { $in: [...new Set(q.sourceIds)] };
  return filter;
}

/**
 * The reply figures' two queries (api/reviews/reply-figures.ts): the reviews of
 * each platform that shows replies dated in the window, counted per platform on
 * the {orgId, platform, date} index, and the replied ones of the window with
 * only what their delay needs (no text).
 */
export function replyFiguresQueries(q: ReplyFiguresQuery): { received: Document[]; replied: Filter<ReviewDocument>; repliedProjection: Document } {
  const { from, to } = dayWindow(q.now, REPLY_WINDOW_DAYS);
  const match: Filter<ReviewDocument> = { orgId: q.orgId, platform: { $in: [...REPLY_PLATFORMS] }, date: { $gt: from, $lte: to } };
  return {
    received: [{ $match: match }, { $group: { _id: '$platform', count: { $sum: 1 } } }],
    replied: { ...match, 'reply.date': { $ne: null } } as Filter<ReviewDocument>,
    repliedProjection: { _id: 0, platform: 1, date: 1, 'reply.date': 1 },
  };
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
  // A catalog product's reviews (CONTRACT §13): its pages, counts and statistics from the index, never the organization's reviews.
  { key: { orgId: 1, productId: 1, date: -1, id: -1 }, options: { name: 'org_product_date_id' } },
  // The dashboard's `Not replied` filter (reply.date null, platforms that show replies): paged and counted from the index.
  { key: { orgId: 1, 'reply.date': 1, platform: 1, date: -1, id: -1 }, options: { name: 'org_reply_platform_date_id' } },
  // A source's reviews (CONTRACT §15, chains: a widget of some locations, a source's review count): from the index.
  // Reviews only ever imported from a file have no sourceId, and are not in it.
  { key: { orgId: 1, sourceId: 1, date: -1, id: -1 }, options: { name: 'org_source_date_id' } },
];

/** A `$group` output row: reviews of one platform with one rating (null = unrated). */
export interface PlatformRatingCount {
  _id: { platform: string; rating: number | null };
  count: number;
}

/** The `$group` output row of the sentiment sum (over reviews that have a sentiment). */
export interface SentimentSum {
  sum: number;
}

/**
 * The statistics as queries only MongoDB 6+ and FerretDB 1.24 both answer
 * (`$match`, `$group` with `$sum`, counts; no `$facet`, `$cond`, `$ifNull`,
 * `$avg`): counts per (platform, rating), the sentiment sum and count over
 * reviews that have one, and the two day windows. `rawStats` adds them up in
 * code and `finishStats` divides with the embedded store's rounding.
 *
 * One accumulator per `$group`: FerretDB 1.24 answers 0 for every accumulator
 * after the first one of a `$group` that sums a field (measured), so the
 * sentiment count is a count of its own.
 */
export function statsQueries(q: StatsQuery): {
  /** The reviews counted (the organization's, or one product's; of the chosen platforms). */
  match: Filter<ReviewDocument>;
  byPlatformRating: Document[];
  sentimentSum: Document[];
  sentimentCount: Filter<ReviewDocument>;
  last30: Filter<ReviewDocument>;
  last7: Filter<ReviewDocument>;
} {
  const match: Filter<ReviewDocument> = { orgId: q.orgId };
  if (q.productId !== undefined) match.productId = q.productId;
  if (q.platforms !== undefined) match.platform = { $in: [...new Set(q.platforms)] };
  if (q.sourceIds !== undefined) match.sourceId = { $in: [...new Set(q.sourceIds)] };
  const window = (days: number): Filter<ReviewDocument> => {
    const { from, to } = dayWindow(q.now, days);
    return { ...match, date: { $gt: from, $lte: to } };
  };
  return {
    match,
    byPlatformRating: [{ $match: match }, { $group: { _id: { platform: '$platform', rating: '$rating' }, count: { $sum: 1 } } }],
    sentimentSum: [{ $match: { ...match, sentimentE6: { $ne: null } } }, { $group: { _id: null, sum: { $sum: '$sentimentE6' } } }],
    sentimentCount: { ...match, sentimentE6: { $ne: null } },
    last30: window(30),
    last7: window(7),
  };
}

/** What `rawStatsOf` reads of each review: a product's statistics from one range of its index. */
export const STATS_PROJECTION = { _id: 0, platform: 1, rating: 1, date: 1, sentimentE6: 1 } as const;
export type StatsDocument = Pick<ReviewDocument, 'platform' | 'rating' | 'date' | 'sentimentE6'>;

/**
 * The statistics of the reviews `statsQueries(q).match` found, counted here
 * (one read of their platform, rating, date and sentiment instead of five
 * queries): the same `RawStats` as `rawStats` over the queries' answers.
 */
export function rawStatsOf(docs: readonly StatsDocument[], q: StatsQuery): RawStats {
  const counts = new Map<string, PlatformRatingCount>();
  let sentimentCount = 0;
  let sentimentSum = 0;
  const w30 = dayWindow(q.now, 30);
  const w7 = dayWindow(q.now, 7);
  let last30 = 0;
  let last7 = 0;
  for (const d of docs) {
    const rating = d.rating ?? null;
    const key = `${d.platform}\u0000${rating ?? ''}`;
    const row = counts.get(key);
    if (row) row.count++;
    else counts.set(key, { _id: { platform: d.platform, rating }, count: 1 });
    if (d.sentimentE6 !== null && d.sentimentE6 !== undefined) {
      sentimentCount++;
      sentimentSum += d.sentimentE6;
    }
    const t = d.date.getTime();
    if (t > w30.from.getTime() && t <= w30.to.getTime()) last30++;
    if (t > w7.from.getTime() && t <= w7.to.getTime()) last7++;
  }
  return rawStats([...counts.values()], { count: sentimentCount, sum: sentimentSum }, last30, last7);
}

/** The answers of `statsQueries`, added up into a `RawStats` (integers only, so exact). */
export function rawStats(
  rows: PlatformRatingCount[],
  sentiment: { count: number; sum: number },
  last30Days: number,
  last7Days: number,
): RawStats {
  const raw = emptyRawStats();
  const platforms = new Map<string, RawStats['platforms'][number]>();
  for (const { _id, count } of rows) {
    let p = platforms.get(_id.platform);
    if (!p) platforms.set(_id.platform, (p = { platform: _id.platform, count: 0, ratedCount: 0, ratingSum: 0 }));
    p.count += count;
    raw.totalReviews += count;
    const rating = _id.rating ?? null;
    if (rating === null) {
      raw.unratedCount += count;
      continue;
    }
    p.ratedCount += count;
    p.ratingSum += rating * count;
    raw.ratedCount += count;
    raw.ratingSum += rating * count;
    raw.starCounts[rating - 1] = (raw.starCounts[rating - 1] ?? 0) + count;
  }
  raw.platforms = [...platforms.values()];
  raw.sentimentCount = sentiment.count;
  raw.sentimentSum = sentiment.count > 0 ? sentiment.sum : 0;
  raw.last30Days = last30Days;
  raw.last7Days = last7Days;
  return raw;
}
