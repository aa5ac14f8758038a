/** Example payloads shown in the document (and checked against their schemas by lint.test.ts). */

export const reviewExample = {
  id: 'rev_7Hq2LmX9pR4tK8vN3bC6',
  platform: 'GOOGLE',
  authorName: 'Maria Lopez',
  authorAvatar: 'https://images.example.com/avatars/maria.png',
  rating: 5,
  content: 'Fast delivery, and the support team solved my problem in minutes.',
  date: '2026-11-02T14:31:08.000Z',
  url: 'https://www.example.com/reviews/8421',
  language: 'en',
  isVerified: true,
  sentiment: 0.93,
  sentimentLabel: 'POSITIVE',
  aiSummary: 'Fast delivery and quick, helpful support.',
  aiThemes: ['delivery', 'support'],
  createdAt: '2026-11-03T08:00:00.000Z',
  productId: null,
  reply: { text: 'Thank you, Maria! Glad the parcel came so quickly.', date: '2026-11-03T09:30:00.000Z' },
} as const;

export const publicWidgetExample = {
  id: 'wdg_3fK9xQ2mLp7RtV8nB4cZ',
  layout: 'carousel',
  subject: 'Acme Trail Shoe',
  options: {
    theme: 'auto',
    accentColor: '#4f46e5',
    showDates: true,
    locale: null,
    reviewLanguages: 'all',
  },
  summary: { averageRating: 4.37, totalReviews: 342, ratedReviews: 312, hiddenReviews: 0, platforms: [{ platform: 'GOOGLE', count: 120, averageRating: 4.52 }] },
  reviews: [
    {
      id: reviewExample.id,
      platform: reviewExample.platform,
      authorName: reviewExample.authorName,
      authorAvatar: reviewExample.authorAvatar,
      rating: reviewExample.rating,
      content: reviewExample.content,
      date: reviewExample.date,
      url: reviewExample.url,
      isVerified: reviewExample.isVerified,
      language: reviewExample.language,
    },
  ],
  jsonLd: null,
  rows: 1,
  height: 314,
} as const;
