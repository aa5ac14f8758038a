/**
 * What the demo organization collected itself (CONTRACT §13): two products of its catalog and
 * reviews of platform DIRECT, about the organization and about each product, so that the
 * demo's rich results are honest (built from DIRECT reviews only) and a product widget has
 * something to show. Deterministic, dated relative to `now`.
 */
import type { ProductInput } from '../store/product-types.ts';
import type { ReviewInput } from '../store/types.ts';
import { DEMO_BUSINESS } from './demo-reviews.ts';

export const DEMO_PRODUCTS: Omit<ProductInput, 'orgId'>[] = [
  { id: 'house-blend-1kg', name: 'Acme House Blend Coffee, 1 kg', url: null, imageUrl: null, gtin: '4006381333931', brand: DEMO_BUSINESS },
  { id: 'yirgacheffe-250g', name: 'Ethiopia Yirgacheffe, 250 g', url: null, imageUrl: null, gtin: null, brand: DEMO_BUSINESS },
];

const DAY = 24 * 60 * 60 * 1000;

/** [productId (null: the organization), rating, author, text] */
const DIRECT: [string | null, number, string, string][] = [
  [null, 5, 'Hannah Ortiz', 'Ordered for the office twice now; both deliveries came a day early and well packed.'],
  [null, 4, 'Marcus Webb', 'Friendly support when I changed my subscription address. Took one email.'],
  [null, 5, 'Priya Nair', 'The roastery tour was the highlight of our weekend. Generous tasting too.'],
  [null, 3, 'Tom Becker', 'Good coffee, but the website checkout asked for my address twice.'],
  ['house-blend-1kg', 5, 'Olivia Grant', 'Smooth and chocolatey, works as espresso and in the French press. Our daily coffee now.'],
  ['house-blend-1kg', 5, 'Daniel Kim', 'Great value for a kilo bag and the roast date is always recent.'],
  ['house-blend-1kg', 4, 'Sofia Rossi', 'Solid everyday blend. A touch darker than I expected, still very good with milk.'],
  ['house-blend-1kg', 4, 'Liam Walsh', 'Consistent from bag to bag, which is what I want from a house blend.'],
  ['house-blend-1kg', 2, 'Emma Novak', 'Too bitter for my taste as a pour-over. Fine in the moka pot.'],
  ['yirgacheffe-250g', 5, 'Noah Fischer', 'Bright, floral, jasmine and lemon. Exactly what a washed Yirgacheffe should taste like.'],
  ['yirgacheffe-250g', 5, 'Ava Lindqvist', 'My favourite filter coffee this year. Arrived three days after roasting.'],
  ['yirgacheffe-250g', 4, 'Lucas Moreau', 'Lovely cup, though 250 g goes too fast. Please offer a bigger bag.'],
];

export function demoDirectReviews(now: Date): ReviewInput[] {
  return DIRECT.map(([productId, rating, authorName, content], i) => ({
    platform: 'DIRECT',
    externalId: `demo-direct-${i + 1}`,
    authorName,
    authorAvatar: null,
    rating,
    content,
    date: new Date(now.getTime() - (3 + i * 9) * DAY).toISOString(),
    url: null,
    language: 'en',
    isVerified: false,
    sentiment: null,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
    productId,
  }));
}
