/**
 * Where a reply's outcome is published for everyone else (CONTRACT §15): the
 * Review's `reply` (`null | {text, date}`), which the API, the widget and the
 * webhooks show. The replies service owns its own records (ReplyStore); the
 * review's field belongs to the reviews. This port is the one narrow door
 * between them, wired in the composition root.
 */
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
 * The composition root's port until the reviews carry `reply` (issue 37,
 * point 1): the outcome stays in the replies records (`replies list`, the
 * dashboard) only. The lead replaces it with the store's review door.
 */
export const unwiredReviewReplies: ReviewReplies = {
  async set() {},
};
