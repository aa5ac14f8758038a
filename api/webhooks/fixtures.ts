/** A stored review for the webhook tests, with characters that must survive signing byte for byte. */
import type { Review } from '../store/types.ts';

export function reviewFixture(overrides: Partial<Review> = {}): Review {
  return {
    id: 'rev_1',
    orgId: 'org_1',
    platform: 'google',
    externalId: 'g-1',
    authorName: 'Zoë Ångström',
    authorAvatar: null,
    rating: 5,
    content: 'Très bien ✓ — would come again',
    date: '2026-11-20T10:00:00.000Z',
    url: null,
    language: 'en',
    isVerified: true,
    sentiment: 0.8,
    sentimentLabel: 'POSITIVE',
    aiSummary: null,
    aiThemes: ['service'],
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:00:00.000Z',
    productId: null,
    reply: null,
    ...overrides,
  };
}
