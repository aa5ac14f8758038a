/** Test and benchmark code: many platform records of one shape, newest first by index. */
import type { TrustpilotReview } from '../trustpilot.ts';

const TEXTS = [
  'Fast delivery and the support team answered within minutes.',
  'The product broke after two weeks and nobody replied to my emails.',
  'Good value for the price, would order again.',
  'Terrible experience, the parcel arrived damaged and late.',
  'Friendly staff, clear instructions, everything worked as promised.',
];

export function trustpilotReviews(n: number, start = Date.parse('2026-11-20T12:00:00Z'), prefix = 'tp'): TrustpilotReview[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    stars: (i % 5) + 1,
    title: i % 3 === 0 ? '' : `Review number ${i}`,
    text: TEXTS[i % TEXTS.length]!,
    createdAt: new Date(start - i * 3600_000).toISOString(),
    isVerified: i % 2 === 0,
    consumer: { displayName: i % 7 === 0 ? '' : `Customer ${i}` },
  }));
}
