/**
 * A widget with a minimum of stars says how many reviews it leaves out: its
 * public data counts the reviews under the minimum (unrated ones included)
 * with the ones the owner hid, each once, in `summary.hiddenReviews`, which the
 * widget shows as "N hidden by the owner" (widget/src/format.ts countLine).
 * Without a minimum, only the hidden ones. Over real HTTPS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test/harness.ts';
import { generateFixture } from '../reviews/fixtures.ts';

let t: TestService;
let orgId: string;

beforeAll(async () => {
  t = await startTestService();
  ({ orgId } = await t.org('growth', 1_000_000));
  const fixture = generateFixture({ sizes: [200] });
  await t.service.store.reviews.upsert(orgId, fixture.inputs(fixture.orgIds[0]!), new Date());
});
afterAll(async () => t.close());

const summaryOf = async (id: string) => ((await t.get(`/public/v1/widgets/${id}`)).body as { data: { summary: { hiddenReviews: number; totalReviews: number }; reviews: { rating: number | null }[] } }).data;

describe('a minimum of stars is disclosed', () => {
  it('counts the reviews under the minimum, unrated ones included, and the hidden ones above it, each once', async () => {
    const platforms = ['GOOGLE', 'TRUSTPILOT'];
    const stats = await t.service.store.reviews.stats({ orgId, now: new Date(), platforms });
    const below = stats.ratingDistribution.filter((b) => b.rating === null || b.rating < 4).reduce((n, b) => n + b.count, 0);
    expect(below).toBeGreaterThan(0);

    const created = await t.admin('POST', '/admin/widgets', { orgId, name: 'Four and up', options: { minRating: 4, platforms } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const data = await summaryOf(id);
    expect(data.reviews.every((r) => r.rating !== null && r.rating >= 4)).toBe(true);
    expect(data.summary.totalReviews).toBe(stats.totalReviews);
    expect(data.summary.hiddenReviews).toBe(below);

    // The owner hides one review under the minimum (already counted) and one above it (counted once more).
    const { items } = await t.service.store.reviews.list({ orgId, platforms, limit: 200, offset: 0 });
    const low = items.find((r) => r.rating !== null && r.rating < 4)!;
    const high = items.find((r) => r.rating !== null && r.rating >= 4)!;
    for (const r of [low, high]) {
      await t.service.store.moderation.hide({ reviewId: r.id, orgId, platform: r.platform, reason: 'spam', hiddenAt: new Date().toISOString(), hiddenBy: { userId: null, email: 'operator' } });
    }
    // A widget created after the change reads the store afresh (no cached version of the first one to wait for).
    const again = await t.admin('POST', '/admin/widgets', { orgId, name: 'Four and up, again', options: { minRating: 4, platforms } });
    expect((await summaryOf(again.body.id as string)).summary.hiddenReviews).toBe(below + 1);

    // No minimum: only the two the owner hid.
    const all = await t.admin('POST', '/admin/widgets', { orgId, name: 'Everything', options: { platforms } });
    expect((await summaryOf(all.body.id as string)).summary.hiddenReviews).toBe(2);
  });
});
