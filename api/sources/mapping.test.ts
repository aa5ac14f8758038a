/** Each connector's `map`: a platform record in, an import record out (CONTRACT §11 mapping). */
import { describe, expect, it } from 'vitest';
import { validateRecord } from '../reviews/import/index.ts';
import { mapFacebook } from './facebook.ts';
import { facebookRatings, g2Responses, googleReviews, trustpilotReviews, yelpReviews } from './fixtures.ts';
import { g2Stars, mapG2 } from './g2.ts';
import { mapGoogle, originalText } from './google.ts';
import { mapTrustpilot, trustpilotContent } from './trustpilot.ts';
import { localToUtc, mapYelp } from './yelp.ts';
import { utc } from './connector.ts';

describe('mapping', () => {
  it('Google: stars, the original text of a translated review, anonymous reviewers, UTC dates', () => {
    const [translated, anonymous, originalFirst] = googleReviews.map(mapGoogle);
    expect(translated).toEqual({
      platform: 'GOOGLE', externalId: 'g-translated', authorName: 'Lucía P.', authorAvatar: 'https://lh3.example.test/photo.jpg', rating: 5,
      content: 'Café excelente y personal muy amable', date: '2026-11-20T09:15:00.123Z', url: null, isVerified: false, replyText: null, replyDate: null,
    });
    expect(anonymous).toMatchObject({ authorName: 'A Google user', authorAvatar: null, rating: null, content: '' });
    expect(originalFirst).toMatchObject({ rating: 2, content: 'Zu laut am Abend', authorAvatar: null, date: '2026-10-01T16:30:00.000Z' });
    expect(originalText('No translation here')).toBe('No translation here');
  });

  it('Trustpilot: title and text, a title repeating the text left out, unrated-looking empty records kept', () => {
    const [a, b, c] = trustpilotReviews.map(mapTrustpilot);
    expect(a).toEqual({
      platform: 'TRUSTPILOT', externalId: 'tp-1', authorName: 'Mara K.', authorAvatar: null, rating: 5,
      content: 'Fast delivery\n\nThe parcel came the next day, well packed.', date: '2026-11-20T10:00:00.000Z', url: 'https://www.trustpilot.com/reviews/tp-1', isVerified: true, replyText: null, replyDate: null,
    });
    expect(b).toMatchObject({ content: 'Great service, and the staff answered at once.', isVerified: false });
    expect(c).toMatchObject({ content: '', rating: 1, authorName: 'A Trustpilot user', date: '2026-11-18T09:00:00.000Z' });
    expect(trustpilotContent('Nice…', 'Nice and quick')).toBe('Nice and quick');
  });

  it('replies: Google reviewReply (comment, updateTime) and Trustpilot companyReply (text, updatedAt else createdAt) become the reply, validated like a file\'s', () => {
    const google = mapGoogle(googleReviews[2]!);
    expect(google).toMatchObject({ replyText: 'Danke! <b>Wir</b> arbeiten daran.', replyDate: '2026-10-02T08:00:00.987Z' });
    const [, edited, first] = trustpilotReviews.map(mapTrustpilot);
    expect(edited).toMatchObject({ replyText: 'Thanks Jon, see you soon.', replyDate: '2026-11-20T07:30:00.000Z' });
    expect(first).toMatchObject({ replyText: 'Sorry to read this. Please write to us.', replyDate: '2026-11-18T11:00:00.000Z' });
    const now = new Date('2026-11-28T00:00:00Z');
    const stored = (r: object) => {
      const v = validateRecord(r, now);
      if (!v.ok) throw new Error(v.reason);
      return v.value.reply;
    };
    expect(stored(google)).toEqual({ text: 'Danke! <b>Wir</b> arbeiten daran.', date: '2026-10-02T08:00:00.987Z' });
    expect(stored(edited!)).toEqual({ text: 'Thanks Jon, see you soon.', date: '2026-11-20T07:30:00.000Z' });
    expect(stored(mapGoogle(googleReviews[0]!))).toBeNull();
  });

  it('Yelp: local times to UTC across both daylight-saving changes', () => {
    const [before, after, repeated] = yelpReviews.map((r) => mapYelp(r));
    expect(before).toMatchObject({ date: '2026-03-08T09:30:00.000Z', rating: 5, authorAvatar: 'https://s3-media.example.test/a.jpg', url: 'https://www.yelp.com/biz/acme?hrid=y-1' });
    expect(after).toMatchObject({ date: '2026-03-08T10:30:00.000Z', authorAvatar: null });
    expect(repeated).toMatchObject({ date: '2026-11-01T08:30:00.000Z', authorName: 'A Yelp user', url: null });
    expect(localToUtc('2026-11-01 02:30:00', 'America/Los_Angeles')).toBe('2026-11-01T10:30:00.000Z');
    expect(localToUtc('2026-07-01 12:00:00', 'Europe/Berlin')).toBe('2026-07-01T10:00:00.000Z');
    // The hour that does not exist is read with the offset before the change.
    expect(localToUtc('2026-03-08 02:30:00', 'America/Los_Angeles')).toBe('2026-03-08T10:30:00.000Z');
  });

  it('Facebook: +0000 offsets, no stars from recommendation_type, anonymous reviewers', () => {
    const [rec, starred, negative] = facebookRatings.map(mapFacebook);
    expect(rec).toEqual({
      platform: 'FACEBOOK', externalId: 'fb-story-1', authorName: 'Chris Lee', authorAvatar: null, rating: null,
      content: 'Lovely place, great brunch', date: '2019-03-01T17:05:12.000Z', url: null, isVerified: false,
    });
    expect(starred).toMatchObject({ rating: 4, authorName: 'A Facebook user' });
    expect(negative).toMatchObject({ rating: null, content: '', date: '2019-01-06T04:59:59.000Z', authorName: 'A Facebook user' });
    expect(utc('2019-03-01T17:05:12+0530')).toBe('2019-03-01T11:35:12.000Z');
  });

  it('G2: half stars rounded, answers joined, unrated and anonymous records', () => {
    const [a, b] = g2Responses.map(mapG2);
    expect(a).toEqual({
      platform: 'G2', externalId: 'g2-1', authorName: 'Priya S.', authorAvatar: 'https://images.g2crowd.example.test/u.png', rating: 5,
      content: 'Solid CRM for small teams\n\nEasy to set up.\n\nReports are slow.', date: '2026-11-01T17:00:00.000Z',
      url: 'https://www.g2.com/products/acme/reviews/acme-review-1', isVerified: true,
    });
    expect(b).toMatchObject({ rating: null, content: '', authorName: 'A G2 user' });
    expect([0.5, 1.4, 2.5, 3, 9, 10, 0, 'x'].map(g2Stars)).toEqual([1, 1, 3, 3, 5, 5, null, null]);
  });

  it('every mapped fixture passes the import validation (the same door as a file)', () => {
    const all = [...googleReviews.map(mapGoogle), ...trustpilotReviews.map(mapTrustpilot), ...yelpReviews.map((r) => mapYelp(r)), ...facebookRatings.map(mapFacebook), ...g2Responses.map(mapG2)];
    for (const record of all) expect(validateRecord(record)).toMatchObject({ ok: true });
  });
});
