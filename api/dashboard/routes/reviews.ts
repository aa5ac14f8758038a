/**
 * Reviews: the organization's reviews with the public API's filters and
 * paging (everyone signed in), and moderation with disclosure (Owner, Admin):
 * hide a review from widgets with a reason, show it again (CONTRACT §7).
 * Hiding is audit-logged; lists and statistics keep counting hidden reviews.
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { ApiError, invalidParameters, notFound, type ParameterDetail } from '../../errors.ts';
import { validQuery, type ListReviewsParams } from '../../openapi/params.ts';
import { reviewQuery } from '../../reviews/routes.ts';
import { isRecordId } from '../../store/ids.ts';
import type { HideReason, Review, ReviewModeration } from '../../store/types.ts';
import { audit } from '../audit.ts';
import { auth } from '../session.ts';
import { parseBody } from '../validate.ts';
import type { DashboardDeps } from './deps.ts';
import { MAX_IMPORT_BYTES } from './reviews-import.ts';

function moderationItem(m: ReviewModeration | undefined) {
  return m ? { reason: m.reason, hiddenAt: m.hiddenAt, hiddenBy: m.hiddenBy.email } : null;
}

function reviewItem(r: Review, hidden: ReviewModeration | undefined) {
  return {
    id: r.id,
    platform: r.platform,
    authorName: r.authorName,
    rating: r.rating,
    date: r.date,
    content: r.content,
    language: r.language,
    url: r.url,
    hidden: moderationItem(hidden),
    reply: r.reply ? { text: r.reply.text, date: r.reply.date } : null,
  };
}

/** The dashboard's own filter beside the public API's: `notReplied=true` (only reviews that can still be answered from here) or `false` (no filter). */
export const NOT_REPLIED = 'notReplied';

/**
 * The query string split into the dashboard's `notReplied` and the public
 * API's parameters, each validated; every problem of both in one 400.
 */
function listParams(querystring: string): { params: ListReviewsParams; notReplied: boolean } {
  const search = new URLSearchParams(querystring);
  const values = search.getAll(NOT_REPLIED);
  search.delete(NOT_REPLIED);
  const problems: ParameterDetail[] = [];
  if (values.length > 1) problems.push({ parameter: NOT_REPLIED, message: `must be given once, not ${values.length} times` });
  else if (values.length === 1 && values[0] !== 'true' && values[0] !== 'false') problems.push({ parameter: NOT_REPLIED, message: 'must be true or false' });
  let params: ListReviewsParams | undefined;
  try {
    params = validQuery('listReviews', search.toString());
  } catch (err) {
    if (problems.length === 0 || !(err instanceof ApiError) || err.code !== 'invalid_parameter') throw err;
    problems.unshift(...err.details.filter((d): d is ParameterDetail => 'parameter' in d));
  }
  if (problems.length > 0 || params === undefined) {
    throw invalidParameters(problems, problems.length === 1 ? `Invalid query parameter: ${problems[0]!.parameter}.` : `Invalid query parameters: ${[...new Set(problems.map((p) => p.parameter))].join(', ')}.`);
  }
  return { params, notReplied: values[0] === 'true' };
}

/**
 * GET /reviews: the same parameters, rules and order as GET /api/v1/reviews, plus each review's
 * moderation, and `notReplied`: with `true`, only the reviews of a platform that shows replies
 * (Google, Trustpilot, DIRECT) that have none, answered by the store like the other filters.
 */
export function listReviews({ store }: DashboardDeps) {
  return async function listReviews(ctx: Context): Promise<void> {
    const { params, notReplied } = listParams(ctx.querystring);
    const { org } = auth(ctx);
    const { limit, offset } = params;
    const query = { ...reviewQuery(org.id, params), ...(notReplied && { awaitingReply: true }) };
    const [page, hidden] = await Promise.all([store.reviews.list(query), store.moderation.listByOrg(org.id)]);
    const byReview = new Map(hidden.map((m) => [m.reviewId, m]));
    ctx.body = {
      data: page.items.map((r) => reviewItem(r, byReview.get(r.id))),
      pagination: { total: page.total, limit, offset, hasMore: offset + page.items.length < page.total },
      hiddenTotal: hidden.length,
      maxImportBytes: MAX_IMPORT_BYTES,
    };
  };
}

/** The review of the path, in the signed-in organization; another organization's is 404, never 403. */
async function ownReview({ store }: DashboardDeps, ctx: Context): Promise<Review> {
  const id = String(ctx.params.id);
  const review = isRecordId(id, 'rev') ? await store.reviews.get(auth(ctx).org.id, id) : null;
  if (!review) throw notFound('Review');
  return review;
}

const label = (r: Review): string => `${r.authorName.slice(0, 60)} on ${r.platform} (${r.date.slice(0, 10)})`;

/** POST /reviews/{id}/hide {reason}: hidden from widgets and JSON-LD review items; hiding again changes the reason. */
export function hideReview(deps: DashboardDeps) {
  return async function hideReview(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const { reason } = parseBody<{ reason: HideReason }>('ReviewHide', await readJson(ctx));
    const review = await ownReview(deps, ctx);
    const current = (await deps.store.moderation.listByOrg(org.id)).find((m) => m.reviewId === review.id);
    let record = current;
    if (!current || current.reason !== reason) {
      record = await deps.store.moderation.hide({
        reviewId: review.id,
        orgId: org.id,
        platform: review.platform,
        reason,
        hiddenAt: new Date().toISOString(),
        hiddenBy: { userId: user.id, email: user.email },
      });
      await audit(deps.store, org.id, user, 'review.hidden', { id: review.id, label: label(review) }, { reason, ...(current && { previousReason: current.reason }) });
    }
    ctx.body = reviewItem(review, record);
  };
}

/** POST /reviews/{id}/show: back in widgets; showing a review that is not hidden changes nothing. */
export function showReview(deps: DashboardDeps) {
  return async function showReview(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const review = await ownReview(deps, ctx);
    const current = (await deps.store.moderation.listByOrg(org.id)).find((m) => m.reviewId === review.id);
    if (current && (await deps.store.moderation.show(org.id, review.id))) {
      await audit(deps.store, org.id, user, 'review.shown', { id: review.id, label: label(review) }, { reason: current.reason });
    }
    ctx.body = reviewItem(review, undefined);
  };
}
