/** Test and benchmark code: many platform records of one shape, newest first by index. */
import type { GoogleReview } from '../google.ts';
import type { TrustpilotReview } from '../trustpilot.ts';

const TEXTS = [
  'Fast delivery and the support team answered within minutes.',
  'The product broke after two weeks and nobody replied to my emails.',
  'Good value for the price, would order again.',
  'Terrible experience, the parcel arrived damaged and late.',
  'Friendly staff, clear instructions, everything worked as promised.',
];

/** The business's answers the generators give (`replies`: every third review, from the second, has one). */
export const REPLY_TEXTS = ['Thank you, we are glad it went well.', 'We are sorry to read this: please write to support@example.test so we can fix it.'];

export interface GenerateOptions {
  /** Give every third review (1, 4, 7, …) the business's answer, written two hours after it. */
  replies?: boolean;
}

export function trustpilotReviews(n: number, start = Date.parse('2026-11-20T12:00:00Z'), prefix = 'tp', options: GenerateOptions = {}): TrustpilotReview[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    stars: (i % 5) + 1,
    title: i % 3 === 0 ? '' : `Review number ${i}`,
    text: TEXTS[i % TEXTS.length]!,
    createdAt: new Date(start - i * 3600_000).toISOString(),
    isVerified: i % 2 === 0,
    consumer: { displayName: i % 7 === 0 ? '' : `Customer ${i}` },
    ...(options.replies && i % 3 === 1 && { companyReply: { text: REPLY_TEXTS[i % 2]!, createdAt: new Date(start - i * 3600_000 + 2 * 3600_000).toISOString() } }),
  }));
}

/** Google reviews (Business Profile API v4 shape), newest first; `replies` as for Trustpilot (`reviewReply`). */
export function googleReviews(n: number, start = Date.parse('2026-11-20T12:00:00Z'), prefix = 'g', options: GenerateOptions = {}): GoogleReview[] {
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(start - i * 3600_000).toISOString();
    return {
      reviewId: `${prefix}-${i}`,
      reviewer: { displayName: `Guest ${i}` },
      starRating: (['ONE', 'TWO', 'THREE', 'FOUR', 'FIVE'] as const)[i % 5]!,
      comment: TEXTS[i % TEXTS.length]!,
      createTime: at,
      updateTime: at,
      ...(options.replies && i % 3 === 1 && { reviewReply: { comment: REPLY_TEXTS[i % 2]!, updateTime: new Date(start - i * 3600_000 + 2 * 3600_000).toISOString() } }),
    };
  });
}
