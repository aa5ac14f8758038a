/**
 * Replies as figures (CONTRACT §15, "Dashboard"): which reviews can still be
 * answered from here (the Reviews page's `Not replied` filter) and the
 * Overview's reply rate and median time to reply. Both stores compute the
 * same thing with these definitions, so they answer identically.
 */
import type { Review } from '../store/types.ts';

/**
 * The platforms whose reviews show a reply and can be answered from here:
 * Google and Trustpilot (their reply APIs) and reviews written on the
 * organization's own review page. Yelp, Facebook, G2 and Capterra offer no
 * reply API, so their reviews are never "waiting for a reply".
 */
export const REPLY_PLATFORMS: readonly string[] = Object.freeze(['GOOGLE', 'TRUSTPILOT', 'DIRECT']);

/** The Overview's window: reviews dated in the last 90 days, ending now (to the millisecond). */
export const REPLY_WINDOW_DAYS = 90;

/** True when the review is on a platform that shows replies and has none (yet). */
export function awaitsReply(review: Pick<Review, 'platform' | 'reply'>): boolean {
  return review.reply === null && REPLY_PLATFORMS.includes(review.platform);
}

/** True when the review is on a platform that shows replies and has one. */
export function hasShownReply(review: Pick<Review, 'platform' | 'reply'>): boolean {
  return review.reply !== null && REPLY_PLATFORMS.includes(review.platform);
}

/**
 * The time to reply of a review with a reply: from the review's date to the
 * reply's (the reply's date is when it was written or last changed). A reply
 * dated before its review (a clock or an import out of step) counts as 0.
 */
export function replyDelayMs(review: { date: string | Date; reply: { date: string | Date } }): number {
  const ms = (d: string | Date) => (d instanceof Date ? d.getTime() : Date.parse(d));
  return Math.max(0, ms(review.reply.date) - ms(review.date));
}

/** The median of the values (the mean of the middle two for an even count, rounded to the ms); null for none. Sorts `values`. */
export function medianMs(values: number[]): number | null {
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid]! : Math.round((values[mid - 1]! + values[mid]!) / 2);
}

export interface PlatformReplyFigures {
  platform: string;
  /** Reviews of the platform dated within the window. */
  received: number;
  /** Those of them that have a reply now. */
  replied: number;
  /** The median time to reply of those replied, in ms; null when none is. */
  medianReplyMs: number | null;
}

export interface ReplyFigures {
  days: number;
  /** Every platform of REPLY_PLATFORMS with at least one review in the window, in that order. */
  platforms: PlatformReplyFigures[];
  /** Over every platform of the list: the median time to reply of all replied reviews in the window. */
  medianReplyMs: number | null;
}

/** The figures of the window from each platform's received count and the delays of its replied reviews. */
export function replyFigures(received: ReadonlyMap<string, number>, delays: ReadonlyMap<string, number[]>): ReplyFigures {
  const platforms: PlatformReplyFigures[] = [];
  const all: number[] = [];
  for (const platform of REPLY_PLATFORMS) {
    const count = received.get(platform) ?? 0;
    if (count === 0) continue;
    const mine = [...(delays.get(platform) ?? [])];
    all.push(...mine);
    platforms.push({ platform, received: count, replied: mine.length, medianReplyMs: medianMs(mine) });
  }
  return { days: REPLY_WINDOW_DAYS, platforms, medianReplyMs: medianMs(all) };
}
