/**
 * Reviews: the organization's reviews with the public API's filters and
 * paging (everyone signed in), and moderation with disclosure (Owner, Admin):
 * hide a review from widgets with a reason, show it again (CONTRACT §7).
 * Hiding is audit-logged; lists and statistics keep counting hidden reviews.
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { notFound } from '../../errors.ts';
import { validQuery } from '../../openapi/params.ts';
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

/** GET /reviews: the same parameters, rules and order as GET /api/v1/reviews, plus each review's moderation. */
export function listReviews({ store }: DashboardDeps) {
  return async function listReviews(ctx: Context): Promise<void> {
    const params = validQuery('listReviews', ctx.querystring);
    const { org } = auth(ctx);
    const { limit, offset } = params;
    const [page, hidden] = await Promise.all([store.reviews.list(reviewQuery(org.id, params)), store.moderation.listByOrg(org.id)]);
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
