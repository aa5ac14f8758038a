/**
 * Platform records as each platform documents them, including the awkward
 * ones: what the mapping tests read and the local HTTPS fakes serve.
 */
import type { FacebookRating } from './facebook.ts';
import type { G2SurveyResponse } from './g2.ts';
import type { GoogleReview } from './google.ts';
import type { TrustpilotReview } from './trustpilot.ts';
import type { YelpReview } from './yelp.ts';

export const googleReviews: GoogleReview[] = [
  {
    name: 'accounts/1/locations/2/reviews/g-translated',
    reviewId: 'g-translated',
    reviewer: { displayName: 'Lucía P.', profilePhotoUrl: 'https://lh3.example.test/photo.jpg', isAnonymous: false },
    starRating: 'FIVE',
    comment: '(Translated by Google) Excellent coffee and friendly staff\n\n(Original)\nCafé excelente y personal muy amable',
    createTime: '2026-11-20T09:15:00.123456789Z',
    updateTime: '2026-11-20T09:15:00.123456789Z',
  },
  {
    reviewId: 'g-anonymous',
    reviewer: { displayName: 'Should not show', profilePhotoUrl: 'https://lh3.example.test/anon.jpg', isAnonymous: true },
    starRating: 'STAR_RATING_UNSPECIFIED',
    createTime: '2026-11-18T12:00:00Z',
    updateTime: '2026-11-19T08:00:00Z',
  },
  {
    reviewId: 'g-original-first',
    reviewer: { displayName: 'Hans', profilePhotoUrl: 'http://insecure.example.test/p.jpg' },
    starRating: 'TWO',
    comment: 'Zu laut am Abend\n\n(Translated by Google)\nToo loud in the evening',
    createTime: '2026-10-01T18:30:00+02:00',
    // Google's times carry nanoseconds; the reply is plain text, markup included.
    reviewReply: { comment: 'Danke! <b>Wir</b> arbeiten daran.', updateTime: '2026-10-02T08:00:00.987654321Z' },
  },
];

export const trustpilotReviews: TrustpilotReview[] = [
  { id: 'tp-1', stars: 5, title: 'Fast delivery', text: 'The parcel came the next day, well packed.', createdAt: '2026-11-20T10:00:00Z', isVerified: true, consumer: { displayName: 'Mara K.' } },
  { id: 'tp-2', stars: 4, title: 'Great service', text: 'Great service, and the staff answered at once.', createdAt: '2026-11-19T10:00:00.000Z', verificationLevel: 'not-verified', consumer: { displayName: 'Jon' },
    // Edited after it was written: its date is the edit's.
    companyReply: { text: 'Thanks Jon, see you soon.', createdAt: '2026-11-19T12:00:00Z', updatedAt: '2026-11-20T08:30:00+01:00' } },
  { id: 'tp-3', stars: 1, title: '', text: '', createdAt: '2026-11-18T10:00:00+01:00', consumer: null, companyReply: { text: 'Sorry to read this. Please write to us.', createdAt: '2026-11-18T11:00:00Z' } },
];

export const yelpReviews: YelpReview[] = [
  // 2026-03-08 02:30 does not exist in Los Angeles (clocks jump 02:00 → 03:00); 01:30 the same night is PST.
  { id: 'y-1', url: 'https://www.yelp.com/biz/acme?hrid=y-1', text: 'Best tacos in town, the salsa bar is…', rating: 5, time_created: '2026-03-08 01:30:00', user: { name: 'Ana R.', image_url: 'https://s3-media.example.test/a.jpg' } },
  // After the spring change: PDT (UTC-7).
  { id: 'y-2', url: 'https://www.yelp.com/biz/acme?hrid=y-2', text: 'Slow on a Sunday.', rating: 3, time_created: '2026-03-08 03:30:00', user: { name: 'Ben', image_url: null } },
  // 01:30 on 2026-11-01 happens twice (PDT, then PST): the first is taken.
  { id: 'y-3', text: 'Fine.', rating: 4, time_created: '2026-11-01 01:30:00', user: null },
];

export const facebookRatings: FacebookRating[] = [
  { created_time: '2019-03-01T17:05:12+0000', recommendation_type: 'positive', review_text: 'Lovely place, great brunch', reviewer: { id: '1', name: 'Chris Lee' }, open_graph_story: { id: 'fb-story-1' } },
  { created_time: '2017-06-10T08:00:00+0000', rating: 4, recommendation_type: 'positive', review_text: 'Old star rating', open_graph_story: { id: 'fb-story-2' } },
  { created_time: '2019-01-05T23:59:59-0500', recommendation_type: 'negative', reviewer: null, open_graph_story: { id: 'fb-story-3' } },
];

export const g2Responses: G2SurveyResponse[] = [
  {
    id: 'g2-1',
    type: 'survey_responses',
    attributes: {
      star_rating: 4.5,
      title: 'Solid CRM for small teams',
      comment_answers: { love: { value: 'Easy to set up.' }, hate: { value: 'Reports are slow.' } },
      submitted_at: '2026-11-01T12:00:00.000-05:00',
      user_name: 'Priya S.',
      user_image_url: 'https://images.g2crowd.example.test/u.png',
      verified_current_user: true,
      public_url: 'https://www.g2.com/products/acme/reviews/acme-review-1',
    },
  },
  { id: 'g2-2', type: 'survey_responses', attributes: { star_rating: null, title: '', comment_answers: null, submitted_at: '2026-10-01T00:00:00Z', user_name: null } },
];
