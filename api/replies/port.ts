/**
 * Where a reply's outcome is published for everyone else (CONTRACT §15): the
 * Review's `reply` (`null | {text, date}`), which the API, the widget and the
 * webhooks show. The replies service owns its own records (ReplyStore); the
 * review's field belongs to the reviews. This port is the one narrow door
 * between them, wired in the composition root.
 */
import type { Store } from '../store/types.ts';

export interface PublishedReply {
  text: string;
  /** ISO 8601 UTC: the platform's time of the reply, else the service's clock. */
  date: string;
}

export interface ReviewReplies {
  /** The review's public reply is now `reply` (null: it has none). */
  set(orgId: string, reviewId: string, reply: PublishedReply | null): Promise<void>;
}


/**
 * The port on the store's reviews: the review is written again with its new
 * `reply` (an upsert by its natural key keeps its id, and a changed reply is
 * one `review.updated`; the same reply again writes nothing). A review gone
 * meanwhile is left gone.
 */
export function storeReviewReplies(store: Store, now: () => Date = () => new Date()): ReviewReplies {
  return {
    async set(orgId, reviewId, reply) {
      const review = await store.reviews.get(orgId, reviewId);
      if (!review) return;
      const { id: _id, orgId: _org, createdAt: _c, updatedAt: _u, ...input } = review;
      await store.reviews.upsert(orgId, [{ ...input, reply: reply && { text: reply.text, date: reply.date } }], now());
    },
  };
}
