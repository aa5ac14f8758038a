/**
 * GET /reviews and GET /reviews/stats over real HTTPS: exact answers against
 * the generated data set with known answers, every bad parameter, isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onMongo, startTestService, type TestService } from '../test/harness.ts';
import type { Review } from '../store/types.ts';
import { EMPTY_STATS, FIXTURE_PLATFORMS, FIXTURE_PRODUCT_IDS, generateFixture, HOSTILE_TEXTS, referenceList, referenceStats } from './fixtures.ts';

interface ListBody {
  data: Record<string, unknown>[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

const REVIEW_FIELDS = [
  'id',
  'platform',
  'authorName',
  'authorAvatar',
  'rating',
  'content',
  'date',
  'url',
  'language',
  'isVerified',
  'sentiment',
  'sentimentLabel',
  'aiSummary',
  'aiThemes',
  'createdAt',
  'productId',
  'reply',
];

let t: TestService;
let key: string;
let otherKey: string;
let stored: Review[];
let orgA: string;
// On the MongoDB store (FerretDB scans for every query) a smaller data set with the same awkward cases.
const fixture = generateFixture({ sizes: onMongo ? [150, 30] : [700, 50] });

beforeAll(async () => {
  t = await startTestService();
  const a = await t.org('growth', 1_000_000);
  const b = await t.org('growth', 1_000_000);
  key = a.key;
  orgA = a.orgId;
  otherKey = b.key;
  const [fa, fb] = fixture.orgIds as [string, string];
  await t.service.store.reviews.upsert(a.orgId, fixture.inputs(fa), fixture.now);
  await t.service.store.reviews.upsert(b.orgId, fixture.inputs(fb), fixture.now);
  stored = (await t.service.store.reviews.list({ orgId: a.orgId, limit: 1_000_000, offset: 0 })).items;
});
afterAll(async () => t.close());

const list = async (query: string, k = key) => {
  const res = await t.get(`/api/v1/reviews${query}`, { key: k });
  expect(res.status, `${query}: ${res.text.slice(0, 300)}`).toBe(200);
  return res.body as ListBody;
};

describe('GET /reviews', () => {
  it('defaults to 20 newest reviews with the 15 fields of the spec and productId, nothing else', async () => {
    const body = await list('');
    expect(body.pagination).toEqual({ total: stored.length, limit: 20, offset: 0, hasMore: true });
    expect(body.data.map((r) => r.id)).toEqual(referenceList(stored, { orgId: orgA, limit: 20, offset: 0 }).items.map((r) => r.id));
    for (const r of body.data) {
      expect(Object.keys(r)).toEqual(REVIEW_FIELDS);
      expect(Array.isArray(r.aiThemes)).toBe(true);
    }
  });

  it('matches the reference for filter combinations, with exact totals and hasMore', async () => {
    const cases: [string, Parameters<typeof referenceList>[1]][] = [
      ['?platform=google', { orgId: orgA, platforms: ['GOOGLE'], limit: 20, offset: 0 }],
      ['?platform=FaceBook&limit=100', { orgId: orgA, platforms: ['FACEBOOK'], limit: 100, offset: 0 }],
      ['?minRating=4&limit=7&offset=3', { orgId: orgA, minRating: 4, limit: 7, offset: 3 }],
      ['?maxRating=2.5', { orgId: orgA, maxRating: 2.5, limit: 20, offset: 0 }],
      ['?minRating=3&maxRating=3&platform=yelp', { orgId: orgA, minRating: 3, maxRating: 3, platforms: ['YELP'], limit: 20, offset: 0 }],
      ['?since=2026-11-14', { orgId: orgA, since: new Date('2026-11-14T00:00:00Z'), limit: 20, offset: 0 }],
      [`?since=${encodeURIComponent('2026-10-21T12:00:00+02:00')}&minRating=1`, { orgId: orgA, since: new Date('2026-10-21T10:00:00Z'), minRating: 1, limit: 20, offset: 0 }],
      ['?platform=tripadvisor', { orgId: orgA, platforms: ['TRIPADVISOR'], limit: 20, offset: 0 }],
      ['?platform=NOSUCH', { orgId: orgA, platforms: ['NOSUCH'], limit: 20, offset: 0 }],
      ['?offset=100000', { orgId: orgA, limit: 20, offset: 100000 }],
      ['?limit=100&offset=650', { orgId: orgA, limit: 100, offset: 650 }],
      ['?language=DE&limit=100', { orgId: orgA, language: 'de', limit: 100, offset: 0 }],
      ['?language=he&platform=google&minRating=3', { orgId: orgA, language: 'he', platforms: ['GOOGLE'], minRating: 3, limit: 20, offset: 0 }],
      ['?language=en&offset=30&limit=9', { orgId: orgA, language: 'en', limit: 9, offset: 30 }],
      ['?language=xx', { orgId: orgA, language: 'xx', limit: 20, offset: 0 }],
    ];
    for (const [query, q] of cases) {
      const body = await list(query);
      const want = referenceList(stored, q);
      expect(body.pagination.total, query).toBe(want.total);
      expect(body.data.map((r) => r.id), query).toEqual(want.items.map((r) => r.id));
      expect(body.pagination.hasMore, query).toBe(q.offset + want.items.length < want.total);
    }
  });

  it('never matches unrated reviews with a rating filter', async () => {
    const body = await list('?minRating=1&maxRating=5&limit=100&platform=facebook');
    expect(body.data.every((r) => typeof r.rating === 'number')).toBe(true);
    const all = await list('?platform=facebook&limit=100');
    expect(all.pagination.total).toBeGreaterThan(body.pagination.total);
  });

  it('walks every page with an odd limit and returns every review exactly once, following hasMore', async () => {
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const body = await list(`?limit=33&offset=${offset}`);
      seen.push(...body.data.map((r) => r.id as string));
      if (!body.pagination.hasMore) break;
      offset += 33;
    }
    expect(seen).toEqual(referenceList(stored, { orgId: orgA, limit: 100_000, offset: 0 }).items.map((r) => r.id));
  });

  it('returns unicode and HTML-looking text byte for byte', async () => {
    const body = await list('?limit=100&offset=0');
    const everything: Record<string, unknown>[] = [...body.data];
    for (let offset = 100; offset < stored.length; offset += 100) everything.push(...(await list(`?limit=100&offset=${offset}`)).data);
    const byId = new Map(stored.map((r) => [r.id, r]));
    for (const r of everything) {
      const s = byId.get(r.id as string)!;
      expect(r.content).toBe(s.content);
      expect(r.authorName).toBe(s.authorName);
    }
    const contents = new Set(everything.map((r) => r.content));
    expect(HOSTILE_TEXTS.some((h) => contents.has(h))).toBe(true);
  });

  it("isolates organizations: one key never sees another organization's reviews", async () => {
    const mine = new Set(stored.map((r) => r.id));
    const theirs = await list('?limit=100', otherKey);
    expect(theirs.pagination.total).toBe(fixture.byOrg(fixture.orgIds[1]!).length);
    expect(theirs.data.some((r) => mine.has(r.id as string))).toBe(false);
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['limit=10.5', ['limit']],
    ['limit=1e1', ['limit']],
    ['limit=abc', ['limit']],
    ['limit=', ['limit']],
    ['offset=-1', ['offset']],
    ['offset=1.5', ['offset']],
    ['minRating=0', ['minRating']],
    ['minRating=6', ['minRating']],
    ['maxRating=five', ['maxRating']],
    ['minRating=4&maxRating=2', ['minRating']],
    ['since=yesterday', ['since']],
    ['since=2024-13-45', ['since']],
    ['since=1700000000', ['since']],
    ['platform=%3Cscript%3E', ['platform']],
    ['language=deu', ['language']],
    ['language=e', ['language']],
    ['language=de-AT', ['language']],
    ['min_rating=4', ['min_rating']],
    ['productId=a%20b', ['productId']],
    ['productId=%3Cscript%3E', ['productId']],
    [`productId=${'x'.repeat(101)}`, ['productId']],
    ['limit=1&limit=2', ['limit']],
    ['limit=0&offset=-5&minRating=9&sort=asc', ['limit', 'offset', 'minRating', 'sort']],
  ])('refuses ?%s with 400 invalid_parameter and one detail per problem', async (query, parameters) => {
    const res = await t.get(`/api/v1/reviews?${query}`, { key });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; details: { parameter: string; message: string }[] };
    expect(body.error).toBe('invalid_parameter');
    expect(body.details.map((d) => d.parameter)).toEqual(parameters);
    for (const d of body.details) expect(d.message.length).toBeGreaterThan(0);
  });

  it('refuses parameters on /reviews/stats other than productId, and a malformed productId', async () => {
    const res = await t.get('/api/v1/reviews/stats?platform=google', { key });
    expect(res.status).toBe(400);
    expect((res.body as { details: { parameter: string }[] }).details[0]!.parameter).toBe('platform');
    const bad = await t.get('/api/v1/reviews/stats?productId=sku%2F1', { key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_parameter', details: [{ parameter: 'productId' }] });
  });

  it('gives each review its reply as imported: null, or text and date, hostile text byte for byte', async () => {
    const given = new Map(fixture.inputs(fixture.orgIds[0]!).map((r) => [r.externalId, r.reply ?? null]));
    const externalOf = new Map(stored.map((r) => [r.id, r.externalId]));
    const seen: unknown[] = [];
    for (let offset = 0; offset < 300; offset += 100) {
      const body = await list(`?limit=100&offset=${offset}`);
      for (const r of body.data) {
        expect(r.reply, r.id as string).toEqual(given.get(externalOf.get(r.id as string)!));
        seen.push(r.reply);
      }
    }
    // Both cases, and answers that look like markup, are in what was compared.
    expect(seen.some((r) => r === null)).toBe(true);
    expect(seen.some((r) => r !== null && HOSTILE_TEXTS.includes((r as { text: string }).text) && (r as { text: string }).text.includes('<'))).toBe(true);
  });

  it('filters by productId exactly (case-sensitive), with the other filters, and gives each review its productId', async () => {
    for (const productId of FIXTURE_PRODUCT_IDS) {
      for (const [extra, q] of [
        ['', {}],
        ['&platform=google&limit=5&offset=2', { platforms: ['GOOGLE'], limit: 5, offset: 2 }],
        ['&minRating=4&language=en', { minRating: 4, language: 'en' }],
      ] as [string, Partial<Parameters<typeof referenceList>[1]>][]) {
        const body = await list(`?productId=${encodeURIComponent(productId)}${extra}`);
        const expected = referenceList(stored, { orgId: orgA, limit: 20, offset: 0, ...q, productId });
        expect(body.pagination.total, `${productId}${extra}`).toBe(expected.total);
        expect(body.data.map((r) => r.id)).toEqual(expected.items.map((r) => r.id));
        for (const r of body.data) expect(r.productId).toBe(productId);
      }
    }
    expect(stored.some((r) => r.productId === null)).toBe(true);
    const all = await list('?limit=100');
    const byId = new Map(stored.map((r) => [r.id, r.productId]));
    for (const r of all.data) expect(r.productId).toBe(byId.get(r.id as string));
  });

  it('answers an empty page for a product no review names, or one not in the catalog', async () => {
    expect(await list('?productId=no-such-sku')).toEqual({ data: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
  });
});

describe('GET /reviews/stats', () => {
  it('matches the reference exactly (the day windows are relative to the request time)', async () => {
    const res = await t.get('/api/v1/reviews/stats', { key });
    expect(res.status).toBe(200);
    const stats = (res.body as { data: ReturnType<typeof referenceStats> }).data;
    expect(stats).toEqual(referenceStats(stored, { orgId: orgA, now: new Date() }));
    expect(stats.ratingDistribution.slice(0, 5).map((b) => b.rating)).toEqual([5, 4, 3, 2, 1]);
    expect(stats.ratingDistribution.at(-1)).toEqual({ rating: null, count: stored.filter((r) => r.rating === null).length });
    expect(stats.platforms.map((p) => p.platform).sort()).toEqual([...FIXTURE_PLATFORMS, 'TRIPADVISOR'].filter((p) => stored.some((r) => r.platform === p)).sort());
    const counts = stats.platforms.map((p) => p.count);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
  });

  it('answers one product’s statistics exactly, and zero statistics for a product without reviews', async () => {
    for (const productId of FIXTURE_PRODUCT_IDS) {
      const res = await t.get(`/api/v1/reviews/stats?productId=${encodeURIComponent(productId)}`, { key });
      expect(res.status).toBe(200);
      const stats = (res.body as { data: ReturnType<typeof referenceStats> }).data;
      expect(stats).toEqual(referenceStats(stored, { orgId: orgA, now: new Date(), productId }));
      expect(stats.totalReviews).toBeGreaterThan(0);
    }
    const none = await t.get('/api/v1/reviews/stats?productId=no-such-sku', { key });
    expect((none.body as { data: unknown }).data).toEqual(EMPTY_STATS);
  });

  it('answers an organization without reviews with zeros and nulls', async () => {
    const { key: emptyKey } = await t.org('agency');
    const res = await t.get('/api/v1/reviews/stats', { key: emptyKey });
    expect((res.body as { data: unknown }).data).toEqual(EMPTY_STATS);
  });
});
