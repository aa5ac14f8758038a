/** GET /reviews and GET /reviews/stats: parameters validated from the OpenAPI document. */
import type { Context } from 'koa';
import type { AuthState } from '../auth/authenticate.ts';
import { validQuery, type ListReviewsParams } from '../openapi/params.ts';
import { PageCache } from './page-cache.ts';
import type { Review, ReviewQuery, ReviewStats, Store } from '../store/types.ts';

/** The 15 fields of the spec's Review, in the spec's order, then the review's product (CONTRACT §13): nothing internal leaves. */
export function publicReview(r: Review) {
  return {
    id: r.id,
    platform: r.platform,
    authorName: r.authorName,
    authorAvatar: r.authorAvatar,
    rating: r.rating,
    content: r.content,
    date: r.date,
    url: r.url,
    language: r.language,
    isVerified: r.isVerified,
    sentiment: r.sentiment,
    sentimentLabel: r.sentimentLabel,
    aiSummary: r.aiSummary,
    aiThemes: r.aiThemes,
    createdAt: r.createdAt,
    productId: r.productId ?? null,
    reply: r.reply ? { text: r.reply.text, date: r.reply.date } : null,
  };
}

/**
 * Reviews held by the embedded store are frozen and shared, so each one's JSON
 * is encoded once and reused by every page that shows it (the list endpoint's
 * main cost was serializing the same reviews again and again). Entries die
 * with the review object when it is updated.
 */
const encoded = new WeakMap<Review, Buffer>();

function reviewJson(review: Review): Buffer {
  let json = encoded.get(review);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(publicReview(review)), 'utf8');
    if (Object.isFrozen(review)) encoded.set(review, json);
  }
  return json;
}

const COMMA = Buffer.from(',');

/** `{"data":[…],"pagination":{…}}` assembled from the encoded reviews. */
export function listBody(items: readonly Review[], pagination: { total: number; limit: number; offset: number; hasMore: boolean }): Buffer {
  const parts: Buffer[] = [Buffer.from('{"data":[')];
  items.forEach((review, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(reviewJson(review));
  });
  parts.push(Buffer.from(`],"pagination":${JSON.stringify(pagination)}}`));
  return Buffer.concat(parts);
}

/** The store query of GET /reviews' validated parameters (also the dashboard's list: same rules). */
export function reviewQuery(orgId: string, params: ListReviewsParams): ReviewQuery {
  const { limit, offset, platform, minRating, maxRating, since, language, productId } = params;
  return {
    orgId,
    ...(platform !== undefined && { platforms: [platform] }),
    ...(minRating !== undefined && { minRating }),
    ...(maxRating !== undefined && { maxRating }),
    ...(since !== undefined && { since }),
    ...(language !== undefined && { language }),
    ...(productId !== undefined && { productId }),
    limit,
    offset,
  };
}

export function listReviews(store: Store) {
  const cache = new PageCache();
  return async function listReviews(ctx: Context): Promise<void> {
    const params = validQuery('listReviews', ctx.querystring);
    const { org } = ctx.state.auth as AuthState;
    // Unchanged reviews since this page was last answered (the embedded store says so): the same bytes.
    const generation = store.reviews.generation?.(org.id);
    const key = generation === undefined ? null : PageCache.key(org.id, generation, ctx.querystring);
    const kept = key === null ? undefined : cache.get(key);
    ctx.type = 'application/json; charset=utf-8';
    if (kept) {
      ctx.body = kept;
      return;
    }
    const { limit, offset } = params;
    const page = await store.reviews.list(reviewQuery(org.id, params));
    const body = listBody(page.items, { total: page.total, limit, offset, hasMore: offset + page.items.length < page.total });
    // Kept only if nothing was written while the page was read.
    if (key !== null && store.reviews.generation!(org.id) === generation) cache.set(key, body);
    ctx.body = body;
  };
}

/**
 * The JSON of a Statistics object's arrays, kept per array: the embedded store
 * hands out the same frozen arrays until the organization's next write, so
 * they are encoded once rather than on every request.
 */
const encodedArrays = new WeakMap<object, string>();

function arraysJson(stats: ReviewStats): string {
  let json = encodedArrays.get(stats.platforms);
  if (json === undefined || encodedArrays.get(stats.ratingDistribution) !== json) {
    json = `"platforms":${JSON.stringify(stats.platforms)},"ratingDistribution":${JSON.stringify(stats.ratingDistribution)}`;
    if (Object.isFrozen(stats.platforms) && Object.isFrozen(stats.ratingDistribution)) {
      encodedArrays.set(stats.platforms, json);
      encodedArrays.set(stats.ratingDistribution, json);
    }
  }
  return json;
}

/** `{"data": stats}` as JSON.stringify writes it (same fields, same order), the arrays encoded once per version. */
export function statsBody(stats: ReviewStats): string {
  const { totalReviews, averageRating, averageSentiment, last30Days, last7Days } = stats;
  return `{"data":{"totalReviews":${JSON.stringify(totalReviews)},"averageRating":${JSON.stringify(averageRating)},"averageSentiment":${JSON.stringify(averageSentiment)},"last30Days":${JSON.stringify(last30Days)},"last7Days":${JSON.stringify(last7Days)},${arraysJson(stats)}}}`;
}

/** The last answer's bytes per version of the arrays (frozen per organization and write) and what else it said. */
const lastStatsBody = new WeakMap<object, { stats: ReviewStats; bytes: Buffer }>();

/**
 * statsBody's bytes, the same Buffer again while nothing in the statistics
 * changed (the windows' counts move only when a review leaves or enters them):
 * polled statistics are encoded once, not on every request.
 */
export function statsBytes(stats: ReviewStats): Buffer {
  const last = Object.isFrozen(stats.platforms) ? lastStatsBody.get(stats.platforms) : undefined;
  if (last && sameStats(last.stats, stats)) return last.bytes;
  const bytes = Buffer.from(statsBody(stats), 'utf8');
  if (Object.isFrozen(stats.platforms)) lastStatsBody.set(stats.platforms, { stats, bytes });
  return bytes;
}

function sameStats(a: ReviewStats, b: ReviewStats): boolean {
  return (
    a.platforms === b.platforms &&
    a.ratingDistribution === b.ratingDistribution &&
    a.totalReviews === b.totalReviews &&
    a.averageRating === b.averageRating &&
    a.averageSentiment === b.averageSentiment &&
    a.last30Days === b.last30Days &&
    a.last7Days === b.last7Days
  );
}

export function reviewStats(store: Store) {
  return async function reviewStats(ctx: Context): Promise<void> {
    const { productId } = validQuery('getStats', ctx.querystring);
    const { org } = ctx.state.auth as AuthState;
    const stats = await store.reviews.stats({ orgId: org.id, now: new Date(), ...(productId !== undefined && { productId }) });
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = statsBytes(stats);
  };
}
