/** Pages kept as bytes (page-cache.ts) stay exact: any write to the organization's reviews is seen by the next request. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onMongo, startTestService, type TestService } from '../test/harness.ts';
import type { ReviewInput } from '../store/types.ts';

let t: TestService;
let orgId: string;
let key: string;

const review = (externalId: string, date: string, rating: number): ReviewInput => ({
  platform: 'GOOGLE',
  externalId,
  authorName: `Author ${externalId}`,
  authorAvatar: null,
  rating,
  content: `Review ${externalId}`,
  date,
  url: null,
  language: 'en',
  isVerified: false,
  sentiment: null,
  sentimentLabel: null,
  aiSummary: null,
  aiThemes: [],
});

beforeAll(async () => {
  t = await startTestService();
  ({ orgId, key } = await t.org('growth', 1_000_000));
  await t.service.store.reviews.upsert(orgId, [review('a', '2026-01-01T00:00:00.000Z', 5), review('b', '2026-01-02T00:00:00.000Z', 4)], new Date());
});
afterAll(async () => t.close());

describe('GET /reviews pages kept between writes', () => {
  it('answers the same page again, and a changed page after any write', async () => {
    const page = async (query: string) => (await t.get(`/api/v1/reviews${query}`, { key })).body as { data: { externalId?: string; authorName: string; rating: number }[]; pagination: { total: number } };
    const first = await page('?limit=1');
    expect(first.data[0]!.authorName).toBe('Author b');
    expect(await page('?limit=1')).toEqual(first);

    // A newer review: the first page changes at once.
    await t.service.store.reviews.upsert(orgId, [review('c', '2026-01-03T00:00:00.000Z', 3)], new Date());
    const second = await page('?limit=1');
    expect(second.data[0]!.authorName).toBe('Author c');
    expect(second.pagination.total).toBe(3);

    // An update in place (same date, same lists): the page shows the new rating.
    await t.service.store.reviews.upsert(orgId, [review('c', '2026-01-03T00:00:00.000Z', 1)], new Date());
    expect((await page('?limit=1')).data[0]!.rating).toBe(1);
    expect((await page('?limit=1&minRating=4')).data[0]!.authorName).toBe('Author b');
    await t.service.store.reviews.upsert(orgId, [review('a', '2026-01-01T00:00:00.000Z', 2)], new Date());
    expect((await page('?limit=5&minRating=4')).pagination.total).toBe(1);
  });

  it.skipIf(onMongo)('is offered only by the embedded store', () => {
    expect(typeof t.service.store.reviews.generation).toBe('function');
  });
});

describe('PageCache bounds', () => {
  it('keeps at most its entries and its bytes, then starts over', async () => {
    const { PageCache } = await import('./page-cache.ts');
    const byEntries = new PageCache(1024 * 1024, 3);
    for (const k of ['a', 'b', 'c']) byEntries.set(k, Buffer.from(k));
    expect(['a', 'b', 'c'].map((k) => byEntries.get(k)?.toString())).toEqual(['a', 'b', 'c']);
    byEntries.set('d', Buffer.from('d'));
    expect(['a', 'b', 'c', 'd'].map((k) => byEntries.get(k)?.toString())).toEqual([undefined, undefined, undefined, 'd']);
    const byBytes = new PageCache(160, 100);
    byBytes.set('x', Buffer.alloc(10));
    expect(byBytes.get('x')).toBeDefined();
    byBytes.set('y', Buffer.alloc(11)); // more than a sixteenth of the budget: not kept
    expect(byBytes.get('y')).toBeUndefined();
  });
});
