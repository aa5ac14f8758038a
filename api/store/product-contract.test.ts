/**
 * The product catalog and reviews that name a product (CONTRACT §13), one
 * suite for every store: the embedded store, and the MongoDB store on the
 * FerretDB that global-setup started (a named skip outside CI when there is
 * none) and on MONGODB_URL when set. Per-product answers are compared with the
 * brute-force reference over the generated fixture, whose reviews name four
 * products (two of them differing only in case) or none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PRODUCT_IDS, generateFixture, referenceList, referenceStats, toInput, type ReviewFixture } from '../reviews/fixtures.ts';
import { roundRatio2 } from '../reviews/stats-math.ts';
import { EmbeddedStore } from './embedded/store.ts';
import type { ProductInput } from './product-types.ts';
import type { Review, ReviewInput, Store } from './types.ts';
import { mongoTargets, openMongoStore, type MongoTarget } from '../test/mongo-suites.ts';

interface Subject {
  name: string;
  target?: MongoTarget;
  open(): Promise<{ store: Store; reopen?: () => Promise<Store>; cleanup(): Promise<void> }>;
}

const subjects: Subject[] = [
  {
    name: 'embedded',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'product-contract-'));
      let store = await EmbeddedStore.open(dir);
      return {
        store,
        async reopen() {
          await store.close();
          store = await EmbeddedStore.open(dir);
          return store;
        },
        async cleanup() {
          await store.close().catch(() => undefined);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];
for (const target of mongoTargets()) {
  subjects.push({
    name: `mongodb on ${target.name}`,
    target,
    async open() {
      const store = await openMongoStore(target, 'products');
      return {
        store,
        async cleanup() {
          await store.dropDatabase();
          await store.close();
        },
      };
    },
  });
}

const product = (orgId: string, id: string, fields: Partial<ProductInput> = {}): ProductInput => ({
  orgId,
  id,
  name: `Product ${id}`,
  url: null,
  imageUrl: null,
  gtin: null,
  brand: null,
  ...fields,
});

const input = (externalId: string, fields: Partial<ReviewInput> = {}): ReviewInput => ({
  platform: 'DIRECT',
  externalId,
  authorName: 'Ana',
  authorAvatar: null,
  rating: 4,
  content: 'Fine',
  date: '2026-11-01T10:00:00.000Z',
  url: null,
  language: 'en',
  isVerified: false,
  sentiment: null,
  sentimentLabel: null,
  aiSummary: null,
  aiThemes: [],
  ...fields,
});

for (const subject of subjects) {
  const skipped = subject.target && !subject.target.url;
  const suite = skipped ? describe.skip : describe;
  suite(skipped ? `product contract: ${subject.name} [SKIPPED: ${subject.target!.missing}]` : `product contract: ${subject.name}`, () => {
    let store: Store;
    let reopen: (() => Promise<Store>) | undefined;
    let cleanup: () => Promise<void>;
    let fixture: ReviewFixture;
    const stored = new Map<string, Review[]>();

    beforeAll(async () => {
      ({ store, reopen, cleanup } = await subject.open());
      fixture = generateFixture({ sizes: subject.target ? [60, 30] : [700, 150] });
      for (const orgId of fixture.orgIds) {
        const inputs = fixture.inputs(orgId);
        for (let i = 0; i < inputs.length; i += 250) await store.reviews.upsert(orgId, inputs.slice(i, i + 250), fixture.now);
        stored.set(orgId, (await store.reviews.list({ orgId, limit: 100_000, offset: 0 })).items);
      }
    }, 120_000);
    afterAll(async () => cleanup());

    it('keeps the product a review names, and null for one that names none', async () => {
      for (const orgId of fixture.orgIds) {
        const byKey = new Map(fixture.byOrg(orgId).map((r) => [r.externalId + r.platform, r.productId]));
        for (const r of stored.get(orgId)!) expect(r.productId).toBe(byKey.get(r.externalId + r.platform));
      }
      expect(stored.get(fixture.orgIds[0]!)!.some((r) => r.productId === null)).toBe(true);
    });

    it('lists one product’s reviews exactly, alone and with the other filters, at any offset', async () => {
      for (const orgId of fixture.orgIds) {
        const mine = stored.get(orgId)!;
        for (const productId of FIXTURE_PRODUCT_IDS) {
          const queries = [
            { orgId, productId },
            { orgId, productId, platforms: ['GOOGLE', 'YELP'] },
            { orgId, productId, minRating: 4 },
            { orgId, productId, language: 'en' },
            { orgId, productId, language: 'fr', platforms: ['GOOGLE'], maxRating: 3 },
            { orgId, productId, since: fixture.sinceCandidates[Math.floor(fixture.sinceCandidates.length / 2)]! },
          ];
          for (const q of queries) {
            for (const [offset, limit] of [[0, 20], [7, 5], [40, 100]] as const) {
              const expected = referenceList(mine, { ...q, offset, limit });
              const got = await store.reviews.list({ ...q, offset, limit });
              expect(got.total, `${JSON.stringify(q)} @${offset}`).toBe(expected.total);
              expect(got.items.map((r) => r.id)).toEqual(expected.items.map((r) => r.id));
            }
          }
        }
      }
    });

    it('answers one product’s statistics exactly; ids are case-sensitive', async () => {
      for (const orgId of fixture.orgIds) {
        for (const productId of FIXTURE_PRODUCT_IDS) {
          for (const platforms of [undefined, ['GOOGLE'], ['TRUSTPILOT', 'G2']]) {
            const q = { orgId, now: fixture.now, productId, ...(platforms && { platforms }) };
            expect(await store.reviews.stats(q), JSON.stringify(q)).toEqual(referenceStats(stored.get(orgId)!, q));
          }
        }
      }
      const orgId = fixture.orgIds[0]!;
      const lower = await store.reviews.stats({ orgId, now: fixture.now, productId: 'sku-1' });
      const upper = await store.reviews.stats({ orgId, now: fixture.now, productId: 'SKU-1' });
      expect(lower.totalReviews).toBeGreaterThan(0);
      expect(upper.totalReviews).toBeGreaterThan(0);
      expect(lower.totalReviews + upper.totalReviews).toBe(stored.get(orgId)!.filter((r) => r.productId?.toLowerCase() === 'sku-1').length);
    });

    it('answers an empty page and zero statistics for a product no review names', async () => {
      const orgId = fixture.orgIds[0]!;
      expect(await store.reviews.list({ orgId, productId: 'no-such-product', limit: 20, offset: 0 })).toEqual({ total: 0, items: [] });
      expect(await store.reviews.list({ orgId, productId: 'sku-1', language: 'xx', limit: 20, offset: 0 })).toEqual({ total: 0, items: [] });
      const stats = await store.reviews.stats({ orgId, now: fixture.now, productId: 'no-such-product' });
      expect(stats).toEqual(referenceStats([], { orgId, now: fixture.now }));
      expect(stats.totalReviews).toBe(0);
    });

    it('upserts, reads and lists catalog products with their review count and average', async () => {
      const [orgA, orgB] = fixture.orgIds as [string, string];
      const t0 = new Date('2026-11-20T10:00:00.000Z');
      const first = await store.products.upsert(product(orgA, 'sku-1', { name: 'Runner', gtin: '9780306406157', brand: 'Acme', url: 'https://shop.example/runner' }), t0);
      expect(first.created).toBe(true);
      expect(first.product).toEqual({
        orgId: orgA,
        id: 'sku-1',
        name: 'Runner',
        url: 'https://shop.example/runner',
        imageUrl: null,
        gtin: '9780306406157',
        brand: 'Acme',
        createdAt: t0.toISOString(),
        updatedAt: t0.toISOString(),
      });
      const t1 = new Date('2026-11-21T10:00:00.000Z');
      const again = await store.products.upsert(product(orgA, 'sku-1', { name: 'Runner 2', imageUrl: 'https://cdn.example/r.png' }), t1);
      expect(again.created).toBe(false);
      expect(again.product).toMatchObject({ name: 'Runner 2', imageUrl: 'https://cdn.example/r.png', gtin: null, brand: null, createdAt: t0.toISOString(), updatedAt: t1.toISOString() });
      expect(await store.products.get(orgA, 'sku-1')).toEqual(again.product);
      // Case-sensitive, and per organization.
      expect(await store.products.get(orgA, 'SKU-1')).toBeNull();
      expect(await store.products.get(orgB, 'sku-1')).toBeNull();
      for (const id of ['SKU-1', 'shoe.red_42', 'b', 'unreviewed']) await store.products.upsert(product(orgA, id), t0);

      const list = await store.products.list(orgA);
      expect(list.map((p) => p.id)).toEqual(['SKU-1', 'b', 'shoe.red_42', 'sku-1', 'unreviewed']);
      const mine = stored.get(orgA)!;
      for (const p of list) {
        const reviews = mine.filter((r) => r.productId === p.id);
        const rated = reviews.filter((r) => r.rating !== null);
        expect(p.reviewCount, p.id).toBe(reviews.length);
        expect(p.averageRating, p.id).toBe(rated.length > 0 ? roundRatio2(rated.reduce((s, r) => s + r.rating!, 0), rated.length) : null);
      }
      expect(list.find((p) => p.id === 'unreviewed')).toMatchObject({ reviewCount: 0, averageRating: null });
      expect(list.find((p) => p.id === 'sku-1')!.reviewCount).toBeGreaterThan(0);
      expect(await store.products.list(orgB)).toEqual([]);
    });

    it('removes a product only while no review names it (has_reviews, then removed once they moved)', async () => {
      const orgId = fixture.orgIds[1]!;
      const t = new Date('2026-11-20T10:00:00.000Z');
      expect(await store.products.remove(orgId, 'never-there')).toBe('not_found');
      await store.products.upsert(product(orgId, 'mug'), t);
      await store.products.upsert(product(orgId, 'cup'), t);
      await store.reviews.upsert(orgId, [input('direct-1', { productId: 'mug', rating: 5 }), input('direct-2', { productId: 'mug', rating: 2 })], t);
      expect(await store.products.remove(orgId, 'mug')).toBe('has_reviews');
      expect(await store.products.get(orgId, 'mug')).not.toBeNull();
      expect((await store.products.list(orgId)).find((p) => p.id === 'mug')).toMatchObject({ reviewCount: 2, averageRating: 3.5 });

      // A re-import naming another product moves the review: lists, statistics and counts follow.
      await store.reviews.upsert(orgId, [input('direct-1', { productId: 'cup', rating: 5 })], t);
      expect((await store.reviews.list({ orgId, productId: 'cup', limit: 10, offset: 0 })).items.map((r) => r.externalId)).toEqual(['direct-1']);
      expect((await store.reviews.list({ orgId, productId: 'mug', limit: 10, offset: 0 })).items.map((r) => r.externalId)).toEqual(['direct-2']);
      expect((await store.reviews.stats({ orgId, now: fixture.now, productId: 'mug' })).averageRating).toBe(2);
      expect(await store.products.remove(orgId, 'mug')).toBe('has_reviews');
      await store.reviews.upsert(orgId, [input('direct-2', { productId: null })], t);
      expect(await store.products.remove(orgId, 'mug')).toBe('removed');
      expect(await store.products.get(orgId, 'mug')).toBeNull();
      expect(await store.products.remove(orgId, 'mug')).toBe('not_found');
      expect((await store.products.list(orgId)).map((p) => p.id)).toEqual(['cup']);
    });

    it('keeps one product’s statistics exact through creates, updates, a hide, a removal and a return', async () => {
      const orgId = 'org_product_stats';
      const now = new Date('2026-11-20T12:00:00.000Z');
      const q = { orgId, now, productId: 'kettle' };
      // The reference: every live review of the organization (listed whole), counted by brute force.
      const check = async (step: string, expected: { total: number; average: number | null; last7: number }) => {
        const all = (await store.reviews.list({ orgId, limit: 1000, offset: 0 })).items;
        const stats = await store.reviews.stats(q);
        expect(stats, step).toEqual(referenceStats(all, q));
        expect([stats.totalReviews, stats.averageRating, stats.last7Days], step).toEqual([expected.total, expected.average, expected.last7]);
        // The platform selection of one product is the same selection of its reviews.
        expect(await store.reviews.stats({ ...q, platforms: ['GOOGLE'] }), step).toEqual(referenceStats(all, { ...q, platforms: ['GOOGLE'] }));
      };
      const t0 = new Date('2026-11-18T00:00:00.000Z');
      await check('before any review', { total: 0, average: null, last7: 0 });
      await store.reviews.upsert(orgId, [
        input('k-1', { productId: 'kettle', rating: 5, date: '2026-11-19T10:00:00.000Z', sentiment: 0.9 }),
        input('k-2', { productId: 'kettle', rating: 2, platform: 'GOOGLE', date: '2026-10-01T10:00:00.000Z' }),
        input('k-3', { productId: 'kettle', rating: null, platform: 'GOOGLE', date: '2026-11-15T10:00:00.000Z' }),
        input('t-1', { productId: 'teapot', rating: 1, date: '2026-11-19T11:00:00.000Z' }),
        input('o-1', { productId: null, rating: 1, date: '2026-11-19T12:00:00.000Z' }),
      ], t0);
      await check('created', { total: 3, average: 3.5, last7: 2 });
      // Updated: a new rating, a move out of the last 7 days, and the teapot's review moved to the kettle.
      await store.reviews.upsert(orgId, [
        input('k-1', { productId: 'kettle', rating: 4, date: '2026-11-19T10:00:00.000Z', sentiment: 0.5 }),
        input('k-3', { productId: 'kettle', rating: 3, platform: 'GOOGLE', date: '2026-11-01T10:00:00.000Z' }),
        input('t-1', { productId: 'kettle', rating: 1, date: '2026-11-19T11:00:00.000Z' }),
      ], new Date('2026-11-19T00:00:00.000Z'));
      await check('updated', { total: 4, average: 2.5, last7: 2 });
      expect((await store.reviews.stats({ orgId, now, productId: 'teapot' })).totalReviews).toBe(0);
      // Hidden: still counted (hiding never improves a rating; docs/dashboard.md).
      const k2 = (await store.reviews.list({ orgId, productId: 'kettle', platforms: ['GOOGLE'], maxRating: 2, limit: 10, offset: 0 })).items[0]!;
      await store.moderation.hide({ reviewId: k2.id, orgId, platform: k2.platform, reason: 'spam', hiddenAt: now.toISOString(), hiddenBy: { userId: null, email: 'ops@example.com' } });
      await check('one hidden', { total: 4, average: 2.5, last7: 2 });
      // Removed (a full pass no longer saw them): out of the product's statistics.
      const removedAt = new Date('2026-11-20T00:00:00.000Z');
      expect(await store.reviews.remove(orgId, 'DIRECT', ['k-1', 't-1'], removedAt, removedAt)).toBe(2);
      await check('two removed', { total: 2, average: 2.5, last7: 0 });
      // Back on the next pass: counted again.
      await store.reviews.upsert(orgId, [input('k-1', { productId: 'kettle', rating: 5, date: '2026-11-19T10:00:00.000Z' })], new Date('2026-11-20T01:00:00.000Z'));
      await check('one back', { total: 3, average: 3.33, last7: 1 });
    });

    it.runIf(subject.name === 'embedded')('replays the catalog and each review’s product after a restart', async () => {
      const orgId = fixture.orgIds[1]!;
      const before = await store.products.list(orgId);
      const page = await store.reviews.list({ orgId, productId: 'cup', limit: 10, offset: 0 });
      store = await reopen!();
      expect(await store.products.list(orgId)).toEqual(before);
      expect(await store.reviews.list({ orgId, productId: 'cup', limit: 10, offset: 0 })).toEqual(page);
      expect(await store.products.get(orgId, 'mug')).toBeNull();
    });
  });
}

describe('embedded store: reviews logged before products existed', () => {
  it('reads them as naming no product', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'product-legacy-'));
    try {
      const store = await EmbeddedStore.open(dir);
      const fixture = generateFixture({ sizes: [20] });
      const orgId = fixture.orgIds[0]!;
      // An input as an earlier version gave it: no productId field at all.
      const legacy = fixture.byOrg(orgId).map((r) => {
        const { productId: _p, ...rest } = toInput(r);
        return rest;
      });
      await store.reviews.upsert(orgId, legacy, fixture.now);
      const page = await store.reviews.list({ orgId, limit: 100, offset: 0 });
      expect(page.items.every((r) => r.productId === null)).toBe(true);
      expect((await store.reviews.list({ orgId, productId: 'sku-1', limit: 100, offset: 0 })).total).toBe(0);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
