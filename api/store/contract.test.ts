/**
 * One contract suite for every store: the embedded store, the MongoDB store on
 * the FerretDB that global-setup started (every run; a named skip outside CI
 * when there is none), and on a real MongoDB whenever MONGODB_URL is set.
 * Review answers are compared with the brute-force reference over a generated
 * data set with known answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_STATS, FIXTURE_PLATFORMS, generateFixture, referenceList, referenceMonthly, referenceStats, type ReviewFixture } from '../reviews/fixtures.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { newId } from './ids.ts';
import type { ApiKeyRecord, Organization, Review, ReviewInput, ReviewModeration, ReviewQuery, Source, Store, Widget } from './types.ts';
import { mongoTargets, openMongoStore, type MongoTarget } from '../test/mongo-suites.ts';
import { deliveryId, type WebhookDelivery, type WebhookEndpoint } from './webhook-types.ts';
import { newMessageId } from '../webhooks/events.ts';

interface Subject {
  name: string;
  /** Set for a MongoDB server: the suite is skipped, by name, when it has no URL. */
  target?: MongoTarget;
  open(): Promise<{ store: Store; cleanup(): Promise<void> }>;
}

const subjects: Subject[] = [
  {
    name: 'embedded',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'store-contract-'));
      const store = await EmbeddedStore.open(dir);
      return {
        store,
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
      const store = await openMongoStore(target, 'contract');
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

const iso = (ms: number) => new Date(ms).toISOString();

function keyRecord(orgId: string, hashChar: string): ApiKeyRecord {
  return {
    id: newId('key'),
    orgId,
    name: 'k',
    prefix: 'rvp_live_abcdef',
    hash: hashChar.repeat(64),
    createdAt: iso(Date.now()),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
  };
}

function org(name: string): Organization {
  const now = new Date().toISOString();
  return { id: newId('org'), name, plan: 'growth', rateLimit: null, language: 'en', createdAt: now, updatedAt: now };
}

/** Reviews as the store returns them, minus what the store assigns (id, createdAt, updatedAt). */
function comparable(r: Review) {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = r;
  return rest;
}

for (const subject of subjects) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  const title = subject.target && !subject.target.url ? `store contract: ${subject.name} [SKIPPED: ${subject.target.missing}]` : `store contract: ${subject.name}`;
  suite(title, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fixture: ReviewFixture;
    /** The fixture's reviews as this store holds them (ids assigned by the store). */
    const stored = new Map<string, Review[]>();

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      // FerretDB on SQLite answers every query but a lone `_id` lookup by scanning the whole
      // collection (see the README's storage section): a smaller data set, the same awkward cases.
      fixture = generateFixture({ sizes: subject.target ? [60, 30, 20] : [900, 150, 20] });
      for (const orgId of fixture.orgIds) {
        const inputs = fixture.inputs(orgId);
        for (let i = 0; i < inputs.length; i += 250) await store.reviews.upsert(orgId, inputs.slice(i, i + 250), fixture.now);
        const all = await store.reviews.list({ orgId, limit: 100_000, offset: 0 });
        stored.set(orgId, all.items);
      }
    }, 120_000);
    afterAll(async () => cleanup());

    it('creates, reads, lists and updates organizations', async () => {
      const a = org('Alpha');
      await store.orgs.create(a);
      expect(await store.orgs.get(a.id)).toEqual(a);
      expect(await store.orgs.get('org_missing')).toBeNull();
      const updated = await store.orgs.update(a.id, { plan: 'agency', rateLimit: 500 });
      expect(updated).toMatchObject({ id: a.id, plan: 'agency', rateLimit: 500 });
      expect((await store.orgs.list()).map((o) => o.id)).toContain(a.id);
      expect(await store.orgs.update('org_missing', { plan: 'free' })).toBeNull();
      expect(await store.orgs.update(a.id, { language: 'de' })).toMatchObject({ id: a.id, language: 'de', plan: 'agency' });
      expect(await store.orgs.get(a.id)).toMatchObject({ language: 'de' });
    });

    it('keeps keys by hash, lists them per organization, revokes once and records use', async () => {
      const o = org('Keys');
      await store.orgs.create(o);
      const key = keyRecord(o.id, 'a');
      await store.keys.create(key);
      expect(await store.keys.findByHash('a'.repeat(64))).toEqual(key);
      expect(await store.keys.findByHash('b'.repeat(64))).toBeNull();
      expect(await store.keys.listByOrg(o.id)).toEqual([key]);
      expect(await store.keys.listByOrg('org_other')).toEqual([]);
      const at = new Date('2026-11-21T10:00:00.000Z');
      await store.keys.touch(key.id, at);
      expect((await store.keys.get(key.id))?.lastUsedAt).toBe(at.toISOString());
      const revoked = await store.keys.revoke(key.id, at);
      expect(revoked?.revokedAt).toBe(at.toISOString());
      const again = await store.keys.revoke(key.id, new Date('2027-01-01T00:00:00Z'));
      expect(again?.revokedAt).toBe(at.toISOString());
      expect(await store.keys.revoke('key_missing', at)).toBeNull();
    });

    it('stores and updates widgets', async () => {
      const o = org('Widgets');
      await store.orgs.create(o);
      const now = iso(Date.now());
      const w: Widget = {
        id: newId('wdg'),
        orgId: o.id,
        name: 'Home',
        layout: 'grid',
        subject: { type: 'Product', name: 'Shoes', url: null, image: null, brand: null },
        options: { theme: 'dark', accentColor: '#112233', maxReviews: 6, minRating: 4, platforms: ['GOOGLE'], hideEmpty: true, showDates: false, locale: 'fr-FR', jsonLd: 'on' },
        createdAt: now,
        updatedAt: now,
      };
      await store.widgets.create(w);
      expect(await store.widgets.get(w.id)).toEqual(w);
      expect(await store.widgets.listByOrg(o.id)).toEqual([w]);
      const updated = await store.widgets.update(w.id, { layout: 'list' });
      expect(updated?.layout).toBe('list');
      expect(updated?.options).toEqual(w.options);

      // Overlapping updates of different fields (two `widgets update` calls at once): none is lost.
      const results = await Promise.all([
        store.widgets.update(w.id, { options: { theme: 'light' } }),
        store.widgets.update(w.id, { options: { showDates: true } }),
        store.widgets.update(w.id, { subject: { name: 'Boots' } }),
        store.widgets.update(w.id, { name: 'Landing' }),
      ]);
      expect(results.every((r) => r !== null)).toBe(true);
      const merged = await store.widgets.get(w.id);
      expect(merged).toMatchObject({
        name: 'Landing',
        layout: 'list',
        subject: { ...w.subject, name: 'Boots' },
        options: { ...w.options, theme: 'light', showDates: true },
      });
    });

    it('holds every imported review with its fields intact (unicode and HTML-looking text byte for byte)', async () => {
      for (const orgId of fixture.orgIds) {
        const expected = fixture.byOrg(orgId).map(comparable);
        const got = stored.get(orgId)!.map(comparable);
        const key = (r: { platform: string; externalId: string }) => `${r.platform}/${r.externalId}`;
        expect(new Map(got.map((r) => [key(r), r]))).toEqual(new Map(expected.map((r) => [key(r), r])));
        for (const r of stored.get(orgId)!) expect(r.orgId).toBe(orgId);
      }
    });

    it('lists exactly like the reference for every filter combination, and isolates organizations', async () => {
      const [orgId] = fixture.orgIds as [string];
      const reviews = stored.get(orgId)!;
      const platforms: (string[] | undefined)[] = [undefined, ['GOOGLE'], ['FACEBOOK'], ['G2', 'YELP'], ['NOPE']];
      const ratings: [number | undefined, number | undefined][] = [
        [undefined, undefined],
        [4, undefined],
        [undefined, 2],
        [2.5, 4],
        [5, 5],
        [1, 1],
      ];
      // On a MongoDB server (a scan per call on FerretDB) half the `since` boundaries: 120 calls, not 720.
      const sinces = [undefined, fixture.now, ...fixture.sinceCandidates.slice(0, subject.target ? 2 : 6)];
      const pages = [
        [20, 0],
        [7, 13],
        [100, Math.floor(reviews.length / 2)],
      ] as const;
      const queries: ReviewQuery[] = [];
      for (const p of platforms)
        for (const [minRating, maxRating] of ratings)
          for (const since of sinces)
            // On a MongoDB server every filter combination once, the page shapes in turn (a call costs a scan on FerretDB).
            for (const [limit, offset] of subject.target ? [pages[queries.length % 3]!] : pages) {
              queries.push({
                orgId,
                ...(p && { platforms: p }),
                ...(minRating !== undefined && { minRating }),
                ...(maxRating !== undefined && { maxRating }),
                ...(since && { since }),
                limit,
                offset,
              });
            }
      // Four calls in flight at a time, as several visitors would send them.
      let next = 0;
      let compared = 0;
      const worker = async () => {
        while (next < queries.length) {
          const q = queries[next++]!;
          const got = await store.reviews.list(q);
          const want = referenceList(reviews, q);
          expect(got.total, JSON.stringify(q)).toBe(want.total);
          expect(got.items.map((r) => r.id), JSON.stringify(q)).toEqual(want.items.map((r) => r.id));
          compared++;
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      expect(compared).toBe(subject.target ? 120 : 720);
    });

    it('filters by language like the reference, alone and with the other filters; an unknown language matches nothing', async () => {
      const [orgId] = fixture.orgIds as [string];
      const reviews = stored.get(orgId)!;
      let matched = 0;
      for (const language of ['en', 'de', 'he', 'xx'])
        for (const p of [undefined, ['GOOGLE']])
          for (const [minRating, maxRating] of [[undefined, undefined], [4, undefined]] as const)
            for (const since of [undefined, fixture.sinceCandidates[2]])
              for (const [limit, offset] of [
                [20, 0],
                [7, 13],
              ] as const) {
                const q = {
                  orgId,
                  language,
                  ...(p && { platforms: p }),
                  ...(minRating !== undefined && { minRating }),
                  ...(maxRating !== undefined && { maxRating }),
                  ...(since && { since }),
                  limit,
                  offset,
                };
                const got = await store.reviews.list(q);
                const want = referenceList(reviews, q);
                expect(got.total, JSON.stringify(q)).toBe(want.total);
                expect(got.items.map((r) => r.id), JSON.stringify(q)).toEqual(want.items.map((r) => r.id));
                expect(got.items.every((r) => r.language === language)).toBe(true);
                matched += got.total;
                if (language === 'xx') expect(got.total).toBe(0);
              }
      expect(matched).toBeGreaterThan(0);
    });

    it('walks pages with an odd limit and returns every review exactly once', async () => {
      const [orgId] = fixture.orgIds as [string];
      const seen: string[] = [];
      for (let offset = 0; ; offset += 37) {
        const page = await store.reviews.list({ orgId, platforms: ['GOOGLE', 'TRUSTPILOT'], limit: 37, offset });
        seen.push(...page.items.map((r) => r.id));
        if (offset + page.items.length >= page.total) break;
      }
      const want = stored.get(orgId)!.filter((r) => r.platform === 'GOOGLE' || r.platform === 'TRUSTPILOT');
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe(want.length);
    });

    it('computes statistics exactly like the reference, per organization and per platform set', async () => {
      for (const orgId of fixture.orgIds) {
        const reviews = stored.get(orgId)!;
        for (const platforms of [undefined, ['GOOGLE'], ['FACEBOOK'], [...FIXTURE_PLATFORMS], ['NOPE']]) {
          const q = { orgId, now: fixture.now, ...(platforms && { platforms }) };
          expect(await store.reviews.stats(q)).toEqual(referenceStats(reviews, q));
        }
      }
    });

    it('upserts by platform + externalId: a re-import updates, keeps id and createdAt, never duplicates', async () => {
      const o = org('Upsert');
      await store.orgs.create(o);
      const base: ReviewInput = {
        platform: 'GOOGLE',
        externalId: 'g-1',
        authorName: 'Ann',
        authorAvatar: null,
        rating: 5,
        content: 'Great',
        date: '2026-01-01T00:00:00.000Z',
        url: null,
        language: 'en',
        isVerified: false,
        sentiment: null,
        sentimentLabel: null,
        aiSummary: null,
        aiThemes: [],
      };
      expect(await store.reviews.upsert(o.id, [base, { ...base, externalId: 'g-2' }], new Date('2026-02-01T00:00:00Z'))).toEqual({ imported: 2, updated: 0 });
      const first = (await store.reviews.list({ orgId: o.id, limit: 10, offset: 0 })).items.find((r) => r.externalId === 'g-1')!;
      const result = await store.reviews.upsert(o.id, [{ ...base, rating: 1, content: 'Changed my mind' }], new Date('2026-03-01T00:00:00Z'));
      expect(result).toEqual({ imported: 0, updated: 1 });
      const page = await store.reviews.list({ orgId: o.id, limit: 10, offset: 0 });
      expect(page.total).toBe(2);
      const again = page.items.find((r) => r.externalId === 'g-1')!;
      expect(again).toMatchObject({ id: first.id, createdAt: first.createdAt, rating: 1, content: 'Changed my mind' });
      expect(await store.reviews.list({ orgId: o.id, minRating: 4, limit: 10, offset: 0 })).toMatchObject({ total: 1 });
      // A new language moves the review from one language's lists to the other's.
      expect(await store.reviews.list({ orgId: o.id, language: 'en', limit: 10, offset: 0 })).toMatchObject({ total: 2 });
      await store.reviews.upsert(o.id, [{ ...base, rating: 1, content: 'Me arrepiento', language: 'es' }], new Date('2026-03-02T00:00:00Z'));
      expect((await store.reviews.list({ orgId: o.id, language: 'es', limit: 10, offset: 0 })).items.map((r) => r.id)).toEqual([first.id]);
      expect(await store.reviews.list({ orgId: o.id, language: 'en', limit: 10, offset: 0 })).toMatchObject({ total: 1 });
      // The same externalId on another platform is another review.
      expect(await store.reviews.upsert(o.id, [{ ...base, platform: 'YELP' }], new Date())).toEqual({ imported: 1, updated: 0 });
      expect(await store.reviews.count(o.id)).toBe(3);
    });

    it('hides and shows reviews beside the reviews: a re-import never un-hides, lists and statistics keep counting', async () => {
      const [orgId, otherOrg] = fixture.orgIds as [string, string];
      const reviews = stored.get(orgId)!;
      const [a, b] = [reviews[0]!, reviews[1]!];
      expect(await store.reviews.get(orgId, a.id)).toEqual(a);
      // Another organization's review id is not found, never someone else's review.
      expect(await store.reviews.get(otherOrg, a.id)).toBeNull();
      expect(await store.reviews.get(orgId, 'rev_doesnotexist0000000000')).toBeNull();
      const statsBefore = await store.reviews.stats({ orgId, now: fixture.now });
      const hide = (r: Review, reason: ReviewModeration['reason'], at: string): ReviewModeration => ({
        reviewId: r.id,
        orgId,
        platform: r.platform,
        reason,
        hiddenAt: at,
        hiddenBy: { userId: 'usr_x', email: 'owner@example.com' },
      });
      const hiddenA = hide(a, 'spam', '2026-05-01T00:00:00.000Z');
      expect(await store.moderation.hide(hiddenA)).toEqual(hiddenA);
      await store.moderation.hide(hide(b, 'offensive', '2026-05-02T00:00:00.000Z'));
      // Hiding again changes the reason (one record per review).
      const changed = hide(b, 'personal_data', '2026-05-03T00:00:00.000Z');
      await store.moderation.hide(changed);
      expect(await store.moderation.listByOrg(orgId)).toEqual([hiddenA, changed]);
      expect(await store.moderation.listByOrg(otherOrg)).toEqual([]);
      // Re-importing the hidden review (same platform + externalId) rewrites it but leaves it hidden.
      const { id: _id, orgId: _o, createdAt: _c, updatedAt: _u, ...input } = a;
      expect(await store.reviews.upsert(orgId, [{ ...input, content: `${input.content} (edited)` }], fixture.now)).toEqual({ imported: 0, updated: 1 });
      expect((await store.reviews.get(orgId, a.id))!.content).toBe(`${a.content} (edited)`);
      expect((await store.moderation.listByOrg(orgId)).map((m) => m.reviewId)).toEqual([a.id, b.id]);
      // Hiding never changes what lists and statistics count.
      expect(await store.reviews.stats({ orgId, now: fixture.now })).toEqual(statsBefore);
      expect((await store.reviews.list({ orgId, limit: 5, offset: 0 })).total).toBe(reviews.length);
      // Showing: true once, then false; another organization cannot show it.
      expect(await store.moderation.show(otherOrg, b.id)).toBe(false);
      expect(await store.moderation.show(orgId, b.id)).toBe(true);
      expect(await store.moderation.show(orgId, b.id)).toBe(false);
      expect(await store.moderation.listByOrg(orgId)).toEqual([hiddenA]);
      expect(await store.moderation.show(orgId, a.id)).toBe(true);
      expect(await store.moderation.listByOrg(orgId)).toEqual([]);
    });

    it('answers an organization without reviews with zeros and nulls', async () => {
      const empty = fixture.orgIds.at(-1)!;
      expect(await store.reviews.list({ orgId: empty, limit: 20, offset: 0 })).toEqual({ total: 0, items: [] });
      expect(await store.reviews.stats({ orgId: empty, now: fixture.now })).toEqual(EMPTY_STATS);
      expect(await store.reviews.monthly({ orgId: empty, from: '2000-01', to: '2030-12' })).toEqual([]);
    });

    it('keeps reviews per UTC month and platform exactly like the reference, for any range', async () => {
      let rows = 0;
      for (const orgId of fixture.orgIds) {
        const reviews = stored.get(orgId)!;
        for (const [from, to] of [['2000-01', '2030-12'], ['2025-12', '2026-11'], ['2026-11', '2026-11'], ['2026-12', '2026-01']] as const) {
          const answer = await store.reviews.monthly({ orgId, from, to });
          expect(answer).toEqual(referenceMonthly(reviews, { orgId, from, to }));
          rows += answer.length;
        }
      }
      expect(rows).toBeGreaterThan(20); // the fixture spans many months: the comparison compared something
    });

    it('moves a re-imported review between months and ratings in the monthly counts and the statistics', async () => {
      const o = org('Months');
      await store.orgs.create(o);
      const review = (externalId: string, date: string, rating: number | null, platform = 'GOOGLE'): ReviewInput => ({
        platform,
        externalId,
        authorName: 'Ann',
        authorAvatar: null,
        rating,
        content: 'Fine',
        date,
        url: null,
        language: 'en',
        isVerified: false,
        sentiment: 0.5,
        sentimentLabel: 'NEUTRAL',
        aiSummary: null,
        aiThemes: [],
      });
      const now = new Date('2026-11-21T12:00:00Z');
      await store.reviews.upsert(o.id, [review('a', '2026-01-31T23:59:59.999Z', 5), review('b', '2026-02-01T00:00:00.000Z', 3), review('c', '2026-02-10T00:00:00.000Z', null, 'FACEBOOK')], now);
      const range = { orgId: o.id, from: '2026-01', to: '2026-12' };
      expect(await store.reviews.monthly(range)).toEqual([
        { month: '2026-01', platform: 'GOOGLE', count: 1, ratedCount: 1, ratingSum: 5 },
        { month: '2026-02', platform: 'FACEBOOK', count: 1, ratedCount: 0, ratingSum: 0 },
        { month: '2026-02', platform: 'GOOGLE', count: 1, ratedCount: 1, ratingSum: 3 },
      ]);
      // Re-import: 'a' moves to March with 1 star, 'c' gets a rating, a new review on another platform.
      await store.reviews.upsert(o.id, [review('a', '2026-03-15T10:00:00.000Z', 1), review('c', '2026-02-10T00:00:00.000Z', 4, 'FACEBOOK'), review('a', '2026-02-02T00:00:00.000Z', 2, 'YELP')], now);
      const expected = [
        { month: '2026-02', platform: 'FACEBOOK', count: 1, ratedCount: 1, ratingSum: 4 },
        { month: '2026-02', platform: 'GOOGLE', count: 1, ratedCount: 1, ratingSum: 3 },
        { month: '2026-02', platform: 'YELP', count: 1, ratedCount: 1, ratingSum: 2 },
        { month: '2026-03', platform: 'GOOGLE', count: 1, ratedCount: 1, ratingSum: 1 },
      ];
      expect(await store.reviews.monthly(range)).toEqual(expected);
      const all = (await store.reviews.list({ orgId: o.id, limit: 100, offset: 0 })).items;
      expect(await store.reviews.monthly(range)).toEqual(referenceMonthly(all, range));
      expect(await store.reviews.stats({ orgId: o.id, now })).toEqual(referenceStats(all, { orgId: o.id, now }));
      expect(await store.reviews.stats({ orgId: o.id, now, platforms: ['GOOGLE'] })).toEqual(referenceStats(all, { orgId: o.id, now, platforms: ['GOOGLE'] }));
      // Moving every review out of a month leaves no row for it.
      await store.reviews.upsert(o.id, [review('b', '2026-03-01T00:00:00.000Z', 3)], now);
      expect((await store.reviews.monthly(range)).filter((r) => r.platform === 'GOOGLE').map((r) => [r.month, r.count])).toEqual([['2026-03', 2]]);
    });

    it('removes reviews from every answer, keeps them with removedAt, and brings them back as they were', async () => {
      const o = org('Removal');
      await store.orgs.create(o);
      const review = (externalId: string, date: string, rating: number | null, platform = 'TRUSTPILOT', content = 'Good service'): ReviewInput => ({
        platform, externalId, authorName: 'Ann', authorAvatar: null, rating, content, date, url: null, language: 'en', isVerified: false,
        sentiment: 0.5, sentimentLabel: 'POSITIVE', aiSummary: null, aiThemes: ['service'],
      });
      const now = new Date('2026-11-21T12:00:00Z');
      await store.reviews.upsert(o.id, [review('t1', '2026-11-20T10:00:00.000Z', 5), review('t2', '2026-10-01T10:00:00.000Z', 2), review('t3', '2026-10-02T10:00:00.000Z', null), review('g1', '2026-11-01T00:00:00.000Z', 4, 'GOOGLE')], now);
      const before = (await store.reviews.list({ orgId: o.id, limit: 100, offset: 0 })).items;
      const t2 = before.find((r) => r.externalId === 't2')!;
      expect((await store.reviews.externalIds(o.id, 'TRUSTPILOT')).sort()).toEqual(['t1', 't2', 't3']);

      const at = new Date('2026-11-21T13:00:00.000Z');
      // Unknown ids and another platform's are not touched.
      expect(await store.reviews.remove(o.id, 'TRUSTPILOT', ['t2', 't3', 'nope', 'g1'], at, at)).toBe(2);
      const live = (await store.reviews.list({ orgId: o.id, limit: 100, offset: 0 })).items;
      expect(live.map((r) => r.externalId).sort()).toEqual(['g1', 't1']);
      expect(await store.reviews.count(o.id)).toBe(2);
      expect((await store.reviews.list({ orgId: o.id, platforms: ['TRUSTPILOT'], limit: 100, offset: 0 })).total).toBe(1);
      expect((await store.reviews.list({ orgId: o.id, minRating: 1, maxRating: 2, limit: 100, offset: 0 })).items).toEqual([]);
      expect((await store.reviews.list({ orgId: o.id, language: 'en', limit: 100, offset: 0 })).total).toBe(2);
      expect(await store.reviews.stats({ orgId: o.id, now: at })).toEqual(referenceStats(live, { orgId: o.id, now: at }));
      expect((await store.reviews.stats({ orgId: o.id, now: at })).totalReviews).toBe(2);
      const range = { orgId: o.id, from: '2026-01', to: '2026-12' };
      expect(await store.reviews.monthly(range)).toEqual(referenceMonthly(live, range));
      expect(await store.reviews.get(o.id, t2.id)).toBeNull();
      expect((await store.reviews.externalIds(o.id, 'TRUSTPILOT')).sort()).toEqual(['t1']);
      const removed = await store.reviews.listRemoved(o.id);
      expect(removed.map((r) => [r.externalId, r.removedAt])).toEqual([['t3', at.toISOString()], ['t2', at.toISOString()]]);
      expect(removed[1]).toEqual({ ...t2, removedAt: at.toISOString() });
      // Removing again changes nothing.
      expect(await store.reviews.remove(o.id, 'TRUSTPILOT', ['t2'], at, at)).toBe(0);

      // Listed again: the same review (id, createdAt), the new text, in every answer again.
      const later = new Date('2026-11-22T12:00:00Z');
      const result = await store.reviews.upsert(o.id, [review('t2', '2026-10-01T10:00:00.000Z', 2, 'TRUSTPILOT', 'Edited while away')], later);
      expect(result).toEqual({ imported: 0, updated: 1 });
      const back = await store.reviews.get(o.id, t2.id);
      expect(back).toMatchObject({ id: t2.id, createdAt: t2.createdAt, content: 'Edited while away', updatedAt: later.toISOString() });
      expect(back).not.toHaveProperty('removedAt');
      expect((await store.reviews.listRemoved(o.id)).map((r) => r.externalId)).toEqual(['t3']);
      const after = (await store.reviews.list({ orgId: o.id, limit: 100, offset: 0 })).items;
      expect(after.map((r) => r.externalId).sort()).toEqual(['g1', 't1', 't2']);
      expect(await store.reviews.stats({ orgId: o.id, now: later })).toEqual(referenceStats(after, { orgId: o.id, now: later }));
      expect(await store.reviews.monthly(range)).toEqual(referenceMonthly(after, range));
    });

    it('removes only reviews not written since the pass began: one upserted meanwhile stays, whichever lands first', async () => {
      const o = org('Removal race');
      await store.orgs.create(o);
      const review = (externalId: string, content = 'Good service'): ReviewInput => ({
        platform: 'TRUSTPILOT', externalId, authorName: 'Ann', authorAvatar: null, rating: 4, content, date: '2026-11-01T10:00:00.000Z', url: null, language: 'en', isVerified: false,
        sentiment: 0.5, sentimentLabel: 'POSITIVE', aiSummary: null, aiThemes: [],
      });
      const written = new Date('2026-11-21T12:00:00Z');
      const passStart = new Date('2026-11-21T12:30:00Z');
      const seenAgain = new Date('2026-11-21T12:45:00Z');
      const at = new Date('2026-11-21T13:00:00Z');
      await store.reviews.upsert(o.id, [review('r1'), review('r2')], written);
      // r2 is imported again while the pass runs; the pass (which listed neither) ends and removes what it did not see.
      await store.reviews.upsert(o.id, [review('r2', 'Seen again during the pass')], seenAgain);
      expect(await store.reviews.remove(o.id, 'TRUSTPILOT', ['r1', 'r2'], at, passStart)).toBe(1);
      expect((await store.reviews.list({ orgId: o.id, limit: 10, offset: 0 })).items.map((r) => [r.externalId, r.content])).toEqual([['r2', 'Seen again during the pass']]);
      expect((await store.reviews.listRemoved(o.id)).map((r) => r.externalId)).toEqual(['r1']);
      expect(await store.reviews.count(o.id)).toBe(1);

      // The two at once, many times over: whatever the interleaving, a review upserted after the pass began is live afterwards.
      const ids = Array.from({ length: 20 }, (_, i) => `race-${i}`);
      await store.reviews.upsert(o.id, ids.map((id) => review(id)), written);
      await Promise.all([store.reviews.remove(o.id, 'TRUSTPILOT', ids, at, passStart), ...ids.map((id) => store.reviews.upsert(o.id, [review(id, `Again ${id}`)], seenAgain))]);
      const live = (await store.reviews.list({ orgId: o.id, limit: 100, offset: 0 })).items;
      expect(live.filter((r) => r.externalId.startsWith('race-')).map((r) => r.content).sort()).toEqual(ids.map((id) => `Again ${id}`).sort());
      expect(await store.reviews.count(o.id)).toBe(21);
      expect((await store.reviews.stats({ orgId: o.id, now: at })).totalReviews).toBe(21);
    });

    it('records which source collected a review: kept by a file import, back with a removed review, cleared by disown; found by external ids', async () => {
      const o = org('Collected');
      await store.orgs.create(o);
      const review = (externalId: string, sourceId?: string, content = 'Good service'): ReviewInput => ({
        platform: 'TRUSTPILOT', externalId, authorName: 'Ann', authorAvatar: null, rating: 4, content, date: '2026-11-01T10:00:00.000Z', url: null, language: 'en', isVerified: false,
        sentiment: 0.5, sentimentLabel: 'POSITIVE', aiSummary: null, aiThemes: [], ...(sourceId !== undefined && { sourceId }),
      });
      const t0 = new Date('2026-11-21T12:00:00Z');
      await store.reviews.upsert(o.id, [review('c1', 'src_a'), review('c2', 'src_a'), review('f1'), review('o1', 'src_b')], t0);
      const byId = async (ids: string[]) => Object.fromEntries((await store.reviews.findByExternalIds(o.id, 'TRUSTPILOT', ids)).map((r) => [r.externalId, r.sourceId ?? null]));
      expect(await byId(['c1', 'c2', 'f1', 'o1', 'nope'])).toEqual({ c1: 'src_a', c2: 'src_a', f1: null, o1: 'src_b' });
      expect(await store.reviews.findByExternalIds(o.id, 'GOOGLE', ['c1'])).toEqual([]);
      expect((await store.reviews.externalIds(o.id, 'TRUSTPILOT', 'src_a')).sort()).toEqual(['c1', 'c2']);
      expect((await store.reviews.externalIds(o.id, 'TRUSTPILOT')).sort()).toEqual(['c1', 'c2', 'f1', 'o1']);
      // A file import (no marker) keeps it.
      await store.reviews.upsert(o.id, [review('c1', undefined, 'Edited in a file')], new Date('2026-11-21T12:10:00Z'));
      expect(await byId(['c1'])).toEqual({ c1: 'src_a' });
      // A source that sees a file import adopts it.
      await store.reviews.upsert(o.id, [review('f1', 'src_a')], new Date('2026-11-21T12:20:00Z'));
      expect((await store.reviews.externalIds(o.id, 'TRUSTPILOT', 'src_a')).sort()).toEqual(['c1', 'c2', 'f1']);
      // Removed, then listed again by a file import: still collected.
      const at = new Date('2026-11-21T13:00:00Z');
      expect(await store.reviews.remove(o.id, 'TRUSTPILOT', ['c2'], at, at)).toBe(1);
      expect(await store.reviews.findByExternalIds(o.id, 'TRUSTPILOT', ['c2'])).toEqual([]);
      await store.reviews.upsert(o.id, [review('c2')], new Date('2026-11-21T14:00:00Z'));
      expect(await byId(['c2'])).toEqual({ c2: 'src_a' });
      // Disowned: nothing else changes (not even updatedAt); another source's and unknown ids are untouched.
      const before = (await store.reviews.findByExternalIds(o.id, 'TRUSTPILOT', ['c1']))[0]!;
      expect(await store.reviews.disown(o.id, 'TRUSTPILOT', ['c1', 'o1', 'nope'], 'src_a')).toBe(1);
      const { sourceId: _was, ...rest } = before;
      expect((await store.reviews.findByExternalIds(o.id, 'TRUSTPILOT', ['c1']))[0]).toEqual(rest);
      expect((await store.reviews.externalIds(o.id, 'TRUSTPILOT', 'src_a')).sort()).toEqual(['c2', 'f1']);
      expect(await byId(['o1'])).toEqual({ o1: 'src_b' });
      expect(await store.reviews.count(o.id)).toBe(4);
    });

    it('keeps sources: create, get, list per organization and all, update (merge), delete', async () => {
      const o = org('Sources');
      await store.orgs.create(o);
      const stamp = '2026-11-21T12:00:00.000Z';
      const source: Source = {
        id: newId('src'), orgId: o.id, platform: 'TRUSTPILOT', account: 'bu-1', name: 'Main', state: 'active', everyMinutes: 60,
        credentials: 'v1.sealed', cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp,
        lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
      };
      await store.sources.create(source);
      expect(await store.sources.get(source.id)).toEqual(source);
      expect(await store.sources.get('src_missing')).toBeNull();
      expect(await store.sources.listByOrg(o.id)).toEqual([source]);
      expect((await store.sources.listAll()).map((s) => s.id)).toContain(source.id);
      const updated = await store.sources.update(source.id, { state: 'failing', failures: 3, lastError: 'Trustpilot answered 500', cursor: '2026-11-20T00:00:00.000Z' });
      expect(updated).toMatchObject({ id: source.id, state: 'failing', failures: 3, account: 'bu-1', credentials: 'v1.sealed', cursor: '2026-11-20T00:00:00.000Z' });
      expect(await store.sources.get(source.id)).toEqual(updated);
      expect(await store.sources.update('src_missing', { state: 'active' })).toBeNull();
      expect(await store.sources.delete(source.id)).toBe(true);
      expect(await store.sources.delete(source.id)).toBe(false);
      expect(await store.sources.listByOrg(o.id)).toEqual([]);
    });

    it('keeps webhook endpoints: create, get, list per organization, update (merge), remove with their deliveries', async () => {
      const o = org('Webhooks');
      await store.orgs.create(o);
      const stamp = '2026-11-21T12:00:00.000Z';
      const endpoint: WebhookEndpoint = {
        id: newId('wh'), orgId: o.id, url: 'https://hooks.example/a', events: ['review.created'], description: 'CRM', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      };
      await store.webhooks.create(endpoint);
      expect(await store.webhooks.get(endpoint.id)).toEqual(endpoint);
      expect(await store.webhooks.get('wh_missing')).toBeNull();
      expect(await store.webhooks.listByOrg(o.id)).toEqual([endpoint]);
      const updated = await store.webhooks.update(endpoint.id, { state: 'disabled', disabledReason: 'manual', failingSince: stamp });
      expect(updated).toMatchObject({ id: endpoint.id, state: 'disabled', disabledReason: 'manual', failingSince: stamp, url: endpoint.url, secrets: 'v1.sealed' });
      expect(await store.webhooks.get(endpoint.id)).toEqual(updated);
      expect(await store.webhooks.update('wh_missing', { state: 'enabled' })).toBeNull();

      const message = { id: newMessageId(), orgId: o.id, type: 'webhook.test' as const, body: '{"type":"webhook.test"}', createdAt: stamp, endpointId: endpoint.id };
      await store.webhooks.addMessage(message);
      expect(await store.webhooks.getMessage(message.id)).toEqual(message);
      expect((await store.webhooks.unfanned(1000)).map((m) => m.id)).toContain(message.id);
      const delivery: WebhookDelivery = {
        id: deliveryId(message.id, endpoint.id), messageId: message.id, endpointId: endpoint.id, orgId: o.id, type: 'webhook.test', status: 'pending',
        attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: stamp, createdAt: stamp,
      };
      await store.webhooks.fanOut(message.id, [delivery]);
      // Fanned out twice (a crash before the mark): the delivery as it is now is kept.
      await store.webhooks.putDelivery({ ...delivery, attempts: 1, lastStatusCode: 500 });
      await store.webhooks.fanOut(message.id, [delivery]);
      expect((await store.webhooks.unfanned(1000)).map((m) => m.id)).not.toContain(message.id);
      expect(await store.webhooks.getDelivery(delivery.id)).toMatchObject({ attempts: 1, lastStatusCode: 500 });
      expect((await store.webhooks.due(new Date(stamp), 1000)).map((d) => d.id)).toContain(delivery.id);
      expect((await store.webhooks.due(new Date('2026-11-21T11:00:00.000Z'), 1000)).map((d) => d.id)).not.toContain(delivery.id);
      expect((await store.webhooks.deliveries(endpoint.id, null, 10)).map((d) => d.id)).toEqual([delivery.id]);
      expect(await store.webhooks.deliveries(endpoint.id, 'delivered', 10)).toEqual([]);
      expect(await store.webhooks.remove(endpoint.id)).toBe(true);
      expect(await store.webhooks.remove(endpoint.id)).toBe(false);
      expect(await store.webhooks.listByOrg(o.id)).toEqual([]);
      expect(await store.webhooks.getDelivery(delivery.id)).toBeNull();
    });

    it('refuses an endpoint past the organization\'s cap (WEBHOOK_MAX_ENDPOINTS), even when creations race, and counts per organization', async () => {
      const o = org('Capped');
      const other = org('Not capped');
      await store.orgs.create(o);
      await store.orgs.create(other);
      const stamp = '2026-11-21T12:00:00.000Z';
      const endpoint = (orgId: string, n: number): WebhookEndpoint => ({
        id: newId('wh'), orgId, url: `https://hooks.example/cap-${n}`, events: ['review.created'], description: '', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
      for (let n = 1; n <= 18; n++) expect(await store.webhooks.create(endpoint(o.id, n), 20)).toBe(true);
      // Five creations at once for the last two places: at most two are kept, never more.
      const raced = await Promise.all([19, 20, 21, 22, 23].map((n) => store.webhooks.create(endpoint(o.id, n), 20)));
      expect(raced.filter(Boolean).length).toBeLessThanOrEqual(2);
      expect((await store.webhooks.listByOrg(o.id)).length).toBe(18 + raced.filter(Boolean).length);
      while ((await store.webhooks.listByOrg(o.id)).length < 20) expect(await store.webhooks.create(endpoint(o.id, 30), 20)).toBe(true);
      const refused = endpoint(o.id, 21);
      expect(await store.webhooks.create(refused, 20)).toBe(false);
      expect(await store.webhooks.get(refused.id)).toBeNull();
      expect(await store.webhooks.listByOrg(o.id)).toHaveLength(20);
      // Another organization is counted apart; without a cap (the store's own callers) nothing is refused.
      expect(await store.webhooks.create(endpoint(other.id, 1), 20)).toBe(true);
      expect(await store.webhooks.create(endpoint(o.id, 40))).toBe(true);
      expect(await store.webhooks.listByOrg(o.id)).toHaveLength(21);
    });

    it('answers the deliveries due per endpoint, earliest due first, following each delivery as last written', async () => {
      const o = org('Due');
      await store.orgs.create(o);
      const stamp = '2026-11-21T12:00:00.000Z';
      const endpoint = (url: string): WebhookEndpoint => ({
        id: newId('wh'), orgId: o.id, url, events: ['review.created'], description: '', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
      const a = endpoint('https://hooks.example/due-a');
      const b = endpoint('https://hooks.example/due-b');
      await store.webhooks.create(a);
      await store.webhooks.create(b);
      const at = (minute: number) => new Date(Date.parse(stamp) + minute * 60_000).toISOString();
      const made: WebhookDelivery[] = [];
      for (let i = 0; i < 6; i++) {
        const message = { id: newMessageId(), orgId: o.id, type: 'webhook.test' as const, body: '{}', createdAt: stamp, endpointId: null };
        await store.webhooks.addMessage(message);
        const deliveries = [a, b].map((e): WebhookDelivery => ({
          id: deliveryId(message.id, e.id), messageId: message.id, endpointId: e.id, orgId: o.id, type: 'webhook.test', status: 'pending',
          attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: at(5 - i), createdAt: stamp,
        }));
        await store.webhooks.fanOut(message.id, deliveries);
        made.push(deliveries[0]!);
      }
      const dueOf = async (minute: number, limit = 100) => (await store.webhooks.due(new Date(at(minute)), limit, a.id)).map((d) => d.id);
      // Due at minute 5: all six, earliest first (made in the reverse order of their due times).
      expect(await dueOf(5)).toEqual([...made].reverse().map((d) => d.id));
      expect(await dueOf(2)).toEqual([made[5]!.id, made[4]!.id, made[3]!.id]);
      expect(await dueOf(5, 2)).toEqual([made[5]!.id, made[4]!.id]);
      // Asking changes nothing.
      expect(await dueOf(5, 2)).toEqual([made[5]!.id, made[4]!.id]);
      // Delivered, failed, moved later: each answered by its latest state.
      await store.webhooks.putDelivery({ ...made[5]!, status: 'delivered', attempts: 1, nextAttemptAt: null });
      await store.webhooks.putDelivery({ ...made[4]!, status: 'failed', attempts: 1, nextAttemptAt: null });
      await store.webhooks.putDelivery({ ...made[3]!, attempts: 1, nextAttemptAt: at(30) });
      expect(await dueOf(5)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
      expect(await dueOf(30)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id, made[3]!.id]);
      // Moved earlier again (a replay), and back to pending.
      await store.webhooks.putDelivery({ ...made[5]!, status: 'pending', attempts: 1, nextAttemptAt: at(0) });
      expect(await dueOf(0)).toEqual([made[5]!.id]);
      // The other endpoint's deliveries are its own; removing it leaves this one's.
      expect((await store.webhooks.due(new Date(at(5)), 100, b.id))).toHaveLength(6);
      await store.webhooks.remove(b.id);
      expect(await store.webhooks.due(new Date(at(5)), 100, b.id)).toEqual([]);
      expect(await dueOf(5)).toEqual([made[5]!.id, made[2]!.id, made[1]!.id, made[0]!.id]);
      await store.webhooks.remove(a.id);
    });

    it('resumes every unscheduled pending delivery of an endpoint, however long the backlog before them, and nothing else', async () => {
      const o = org('Resume');
      await store.orgs.create(o);
      const stamp = '2026-11-21T12:00:00.000Z';
      const endpoint = (url: string): WebhookEndpoint => ({
        id: newId('wh'), orgId: o.id, url, events: ['review.created'], description: '', state: 'disabled',
        disabledReason: 'the endpoint answered 410 Gone', createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
      const a = endpoint('https://hooks.example/resume-a');
      const b = endpoint('https://hooks.example/resume-b');
      await store.webhooks.create(a);
      await store.webhooks.create(b);
      const at = (ms: number) => new Date(Date.parse(stamp) + ms).toISOString();
      // 1,200 deliveries, oldest first: the 3 oldest met the 410 (unscheduled), the rest wait due, a few are finished.
      const n = 1200;
      const messages = Array.from({ length: n }, (_, i) => ({ id: newMessageId(), orgId: o.id, type: 'review.created' as const, body: '{}', createdAt: at(i), endpointId: null }));
      for (const m of messages) await store.webhooks.addMessage(m);
      const deliveryOf = (i: number, endpointId: string): WebhookDelivery => ({
        id: deliveryId(messages[i]!.id, endpointId), messageId: messages[i]!.id, endpointId, orgId: o.id, type: 'review.created', status: 'pending',
        attempts: i < 3 ? 1 : 0, lastStatusCode: i < 3 ? 410 : null, lastError: null, lastAttemptAt: null, nextAttemptAt: i < 3 ? null : at(i), createdAt: messages[i]!.createdAt,
      });
      for (let i = 0; i < n; i += 50) await Promise.all(messages.slice(i, i + 50).map((m, j) => store.webhooks.fanOut(m.id, [deliveryOf(i + j, a.id), ...(i + j === 0 ? [deliveryOf(0, b.id)] : [])])));
      // Finished deliveries have no due time either: they stay as they are.
      await store.webhooks.putDelivery({ ...deliveryOf(10, a.id), status: 'delivered', attempts: 1, nextAttemptAt: null });
      await store.webhooks.putDelivery({ ...deliveryOf(11, a.id), status: 'failed', attempts: 8, nextAttemptAt: null });
      const later = '2026-11-22T08:00:00.000Z';
      expect(await store.webhooks.resumeWaiting(a.id, later)).toBe(3);
      // (FerretDB leaves out the null fields of a record written by fan-out: compared by the fields that matter.)
      const state = (d: WebhookDelivery | null) => d && { id: d.id, status: d.status, attempts: d.attempts, lastStatusCode: d.lastStatusCode ?? null, nextAttemptAt: d.nextAttemptAt ?? null };
      for (let i = 0; i < 3; i++) expect(state(await store.webhooks.getDelivery(deliveryOf(i, a.id).id))).toEqual(state({ ...deliveryOf(i, a.id), nextAttemptAt: later }));
      expect((await store.webhooks.due(new Date(later), 5, a.id)).map((d) => d.id)).toEqual([3, 4, 5, 6, 7].map((i) => deliveryOf(i, a.id).id));
      expect((await store.webhooks.due(new Date(later), n, a.id)).filter((d) => d.nextAttemptAt === later).map((d) => d.id).sort()).toEqual([0, 1, 2].map((i) => deliveryOf(i, a.id).id).sort());
      expect(state(await store.webhooks.getDelivery(deliveryOf(10, a.id).id))).toMatchObject({ status: 'delivered', nextAttemptAt: null });
      expect(state(await store.webhooks.getDelivery(deliveryOf(11, a.id).id))).toMatchObject({ status: 'failed', nextAttemptAt: null });
      expect(state(await store.webhooks.getDelivery(deliveryOf(500, a.id).id))).toEqual(state(deliveryOf(500, a.id)));
      // Another endpoint's waiting delivery is its own; a second call finds nothing left.
      expect(state(await store.webhooks.getDelivery(deliveryOf(0, b.id).id))).toMatchObject({ nextAttemptAt: null });
      expect(await store.webhooks.resumeWaiting(a.id, later)).toBe(0);
      expect(await store.webhooks.resumeWaiting(b.id, later)).toBe(1);
      expect(await store.webhooks.resumeWaiting('wh_missing', later)).toBe(0);
      await store.webhooks.remove(a.id);
      await store.webhooks.remove(b.id);
    }, 120_000);

    it('replaces an endpoint\'s secrets only if they are still those read: of two writers racing, one wins', async () => {
      const o = org('Secrets');
      await store.orgs.create(o);
      const stamp = '2026-11-21T12:00:00.000Z';
      const endpoint: WebhookEndpoint = {
        id: newId('wh'), orgId: o.id, url: 'https://hooks.example/secrets', events: ['review.created'], description: '', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.first',
      };
      await store.webhooks.create(endpoint);
      const raced = await Promise.all(['v1.second-a', 'v1.second-b'].map((to) => store.webhooks.replaceSecrets(endpoint.id, 'v1.first', to)));
      const won = raced.filter((r) => r !== null);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ id: endpoint.id, url: endpoint.url, state: 'enabled' });
      expect(await store.webhooks.get(endpoint.id)).toEqual(won[0]);
      // Stale: nothing written.
      expect(await store.webhooks.replaceSecrets(endpoint.id, 'v1.first', 'v1.third')).toBeNull();
      expect((await store.webhooks.get(endpoint.id))!.secrets).toBe(won[0]!.secrets);
      // A write of other fields leaves the secrets, and a comparison with them, as they were.
      await store.webhooks.update(endpoint.id, { lastDeliveryAt: stamp });
      expect(await store.webhooks.replaceSecrets(endpoint.id, won[0]!.secrets, 'v1.third')).toMatchObject({ secrets: 'v1.third', lastDeliveryAt: stamp });
      expect(await store.webhooks.replaceSecrets('wh_missing', 'v1.first', 'v1.x')).toBeNull();
      await store.webhooks.remove(endpoint.id);
    });

    it('records review events in the outbox with the change: created, updated when a shown field changed, removed; nothing for identical data or without endpoints', async () => {
      const o = org('Outbox');
      await store.orgs.create(o);
      const review = (externalId: string, content = 'Good service', rating = 5): ReviewInput => ({
        platform: 'TRUSTPILOT', externalId, authorName: 'Ann', authorAvatar: null, rating, content, date: '2026-11-20T10:00:00.000Z', url: null,
        language: 'en', isVerified: false, sentiment: 0.5, sentimentLabel: 'POSITIVE', aiSummary: null, aiThemes: ['service'],
      });
      const endpointId = newId('wh');
      // What the outbox holds for this organization: messages still to fan out, and those of the endpoint's deliveries
      // (a store may fan an import's events out in the import's own write).
      const mine = async () => {
        const byId = new Map((await store.webhooks.unfanned(100_000)).filter((m) => m.orgId === o.id).map((m) => [m.id, m]));
        for (const d of await store.webhooks.deliveries(endpointId, null, 100_000)) if (!byId.has(d.messageId)) byId.set(d.messageId, (await store.webhooks.getMessage(d.messageId))!);
        return [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      };
      const t0 = new Date('2026-11-21T12:00:00Z');
      // No endpoint yet: nothing recorded.
      await store.reviews.upsert(o.id, [review('a')], t0);
      expect(await mine()).toEqual([]);
      const stamp = t0.toISOString();
      await store.webhooks.create({
        id: endpointId, orgId: o.id, url: 'https://hooks.example/b', events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
      await store.reviews.upsert(o.id, [review('a'), review('b'), review('c', 'Fine')], new Date('2026-11-21T12:01:00Z'));
      let events = await mine();
      expect(events.map((m) => [m.type, (JSON.parse(m.body) as { data: { id: string } }).data.id])).toHaveLength(2);
      expect(events.every((m) => m.type === 'review.created')).toBe(true);
      expect(events.every((m) => m.endpointId === null && m.orgId === o.id)).toBe(true);
      const body = JSON.parse(events[0]!.body) as { type: string; timestamp: string; data: Record<string, unknown> };
      expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
      expect(body.data).not.toHaveProperty('orgId');
      // Identical re-import: nothing. A shown field changed: updated.
      await store.reviews.upsert(o.id, [review('a'), review('b'), review('c', 'Fine')], new Date('2026-11-21T12:02:00Z'));
      expect(await mine()).toHaveLength(2);
      await store.reviews.upsert(o.id, [review('a'), review('b', 'Changed', 2)], new Date('2026-11-21T12:03:00Z'));
      events = await mine();
      expect(events.map((m) => m.type).sort()).toEqual(['review.created', 'review.created', 'review.updated']);
      const updated = JSON.parse(events.find((m) => m.type === 'review.updated')!.body) as { data: { content: string; rating: number } };
      expect(updated.data).toMatchObject({ content: 'Changed', rating: 2 });
      expect(await store.reviews.remove(o.id, 'TRUSTPILOT', ['c'], new Date('2026-11-21T12:04:00Z'), new Date('2026-11-21T12:04:00Z'))).toBe(1);
      events = await mine();
      const removed = events.filter((m) => m.type === 'review.removed');
      expect(removed).toHaveLength(1);
      expect((JSON.parse(removed[0]!.body) as { data: { content: string } }).data.content).toBe('Fine');
      // Back again: created again.
      await store.reviews.upsert(o.id, [review('c', 'Fine')], new Date('2026-11-21T12:05:00Z'));
      expect((await mine()).filter((m) => m.type === 'review.created')).toHaveLength(3);
      const waiting = async () => (await store.webhooks.unfanned(100_000)).filter((m) => m.orgId === o.id);
      for (const m of await waiting()) await store.webhooks.fanOut(m.id, []);
      expect(await waiting()).toEqual([]);
    });

    it('keeps a review\'s reply as given (null, or text and date), and records review.updated only when the reply appears, changes or disappears', async () => {
      const o = org('Replies');
      await store.orgs.create(o);
      const review = (externalId: string, reply?: ReviewInput['reply']): ReviewInput => ({
        platform: 'GOOGLE', externalId, authorName: 'Ann', authorAvatar: null, rating: 2, content: 'Slow service', date: '2026-11-20T10:00:00.000Z', url: null,
        language: 'en', isVerified: false, sentiment: 0.2, sentimentLabel: 'NEGATIVE', aiSummary: null, aiThemes: [], ...(reply === undefined ? {} : { reply }),
      });
      const endpointId = newId('wh');
      const stamp = '2026-11-21T12:00:00.000Z';
      await store.webhooks.create({
        id: endpointId, orgId: o.id, url: 'https://hooks.example/r', events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
      const updates = async () => {
        const byId = new Map((await store.webhooks.unfanned(100_000)).filter((m) => m.orgId === o.id).map((m) => [m.id, m]));
        for (const d of await store.webhooks.deliveries(endpointId, null, 100_000)) if (!byId.has(d.messageId)) byId.set(d.messageId, (await store.webhooks.getMessage(d.messageId))!);
        return [...byId.values()].filter((m) => m.type === 'review.updated').map((m) => (JSON.parse(m.body) as { data: { reply: unknown } }).data.reply);
      };
      const hostile = { text: '</script><script>alert("x")</script> & merci ✓ — שלום', date: '2026-11-21T09:00:00.000Z' };
      await store.reviews.upsert(o.id, [review('none'), review('answered', hostile)], new Date('2026-11-21T12:01:00Z'));
      const stored = async (externalId: string) => (await store.reviews.findByExternalIds(o.id, 'GOOGLE', [externalId]))[0]!;
      // An input without a reply stores none; one with a reply keeps it byte for byte, in lists too.
      expect((await stored('none')).reply).toBeNull();
      expect((await stored('answered')).reply).toEqual(hostile);
      const listed = (await store.reviews.list({ orgId: o.id, limit: 10, offset: 0 })).items;
      expect(Object.fromEntries(listed.map((r) => [r.externalId, r.reply]))).toEqual({ none: null, answered: hostile });
      // The same reply again (and no reply again): nothing recorded.
      await store.reviews.upsert(o.id, [review('none', null), review('answered', { ...hostile })], new Date('2026-11-21T12:02:00Z'));
      expect(await updates()).toEqual([]);
      // A reply appears, one is edited (same text, new date counts too), then one is deleted: one update each.
      const edited = { text: hostile.text, date: '2026-11-22T08:00:00.000Z' };
      await store.reviews.upsert(o.id, [review('none', { text: 'Sorry, Ann.', date: '2026-11-22T07:00:00.000Z' }), review('answered', edited)], new Date('2026-11-22T12:00:00Z'));
      expect(await updates()).toEqual(expect.arrayContaining([{ text: 'Sorry, Ann.', date: '2026-11-22T07:00:00.000Z' }, edited]));
      expect(await updates()).toHaveLength(2);
      await store.reviews.upsert(o.id, [review('none', { text: 'Sorry, Ann.', date: '2026-11-22T07:00:00.000Z' }), review('answered', null)], new Date('2026-11-23T12:00:00Z'));
      expect(await updates()).toHaveLength(3);
      expect((await updates()).filter((r) => r === null)).toHaveLength(1);
      expect((await stored('answered')).reply).toBeNull();
      expect((await stored('none')).reply).toEqual({ text: 'Sorry, Ann.', date: '2026-11-22T07:00:00.000Z' });
      const waiting = async () => (await store.webhooks.unfanned(100_000)).filter((m) => m.orgId === o.id);
      for (const m of await waiting()) await store.webhooks.fanOut(m.id, []);
    });
  });
}

describe('embedded store durability', () => {
  it('refuses a batch holding a record the index cannot hold, before logging anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-refuse-'));
    try {
      const fixture = generateFixture({ sizes: [20] });
      const [orgId] = fixture.orgIds as [string];
      const inputs = fixture.inputs(orgId);
      const first = await EmbeddedStore.open(dir);
      await first.reviews.upsert(orgId, inputs.slice(0, 10), fixture.now);
      await expect(first.reviews.upsert(orgId, [inputs[10]!, { ...inputs[11]!, rating: 9 }], fixture.now)).rejects.toThrow(RangeError);
      expect(await first.reviews.count(orgId)).toBe(10);
      await first.close();
      const second = await EmbeddedStore.open(dir);
      expect(await second.reviews.count(orgId)).toBe(10);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never lets a concurrent write undo another (a revocation racing a lastUsedAt touch)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-race-'));
    try {
      const first = await EmbeddedStore.open(dir);
      const o = org('Race');
      await first.orgs.create(o);
      const key = keyRecord(o.id, 'c');
      await first.keys.create(key);
      const at = new Date('2026-11-21T10:00:00.000Z');
      await Promise.all([first.keys.revoke(key.id, at), first.keys.touch(key.id, at), first.orgs.update(o.id, { plan: 'agency' }), first.orgs.update(o.id, { rateLimit: 7 })]);
      const after = await first.keys.get(key.id);
      expect(after).toMatchObject({ revokedAt: at.toISOString(), lastUsedAt: at.toISOString() });
      expect(await first.orgs.get(o.id)).toMatchObject({ plan: 'agency', rateLimit: 7 });
      await first.close();
      const second = await EmbeddedStore.open(dir);
      expect(await second.keys.get(key.id)).toMatchObject({ revokedAt: at.toISOString() });
      expect(await second.orgs.get(o.id)).toMatchObject({ plan: 'agency', rateLimit: 7 });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reopens with everything that was acknowledged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-reopen-'));
    try {
      const fixture = generateFixture({ sizes: [120] });
      const [orgId] = fixture.orgIds as [string];
      const first = await EmbeddedStore.open(dir);
      const o = { ...org('Reopen'), id: orgId };
      await first.orgs.create(o);
      await first.reviews.upsert(orgId, fixture.inputs(orgId), fixture.now);
      const before = await first.reviews.stats({ orgId, now: fixture.now });
      const beforePage = await first.reviews.list({ orgId, limit: 50, offset: 10 });
      const [shown, hidden] = beforePage.items as [Review, Review];
      const moderation = (r: Review): ReviewModeration => ({ reviewId: r.id, orgId, platform: r.platform, reason: 'not_about_us', hiddenAt: fixture.now.toISOString(), hiddenBy: { userId: null, email: 'operator' } });
      await first.moderation.hide(moderation(shown));
      await first.moderation.hide(moderation(hidden));
      await first.moderation.show(orgId, shown.id);
      await expect(EmbeddedStore.open(dir)).rejects.toThrow(/is in use by another server/);
      await first.close();
      const second = await EmbeddedStore.open(dir);
      expect(await second.orgs.get(orgId)).toEqual(o);
      expect(await second.reviews.stats({ orgId, now: fixture.now })).toEqual(before);
      expect(await second.reviews.list({ orgId, limit: 50, offset: 10 })).toEqual(beforePage);
      expect(await second.moderation.listByOrg(orgId)).toEqual([moderation(hidden)]);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedded store: removals and sources after a restart and a compaction', () => {
  it('replays removed reviews and sources, and a compaction keeps both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-removed-'));
    try {
      const fixture = generateFixture({ sizes: [200] });
      const [orgId] = fixture.orgIds as [string];
      const first = await EmbeddedStore.open(dir);
      await first.orgs.create({ ...org('Replay'), id: orgId });
      await first.reviews.upsert(orgId, fixture.inputs(orgId), fixture.now);
      const all = (await first.reviews.list({ orgId, limit: 1000, offset: 0 })).items;
      const gone = all.slice(0, 5);
      for (const r of gone) await first.reviews.remove(orgId, r.platform, [r.externalId], fixture.now, new Date(fixture.now.getTime() + 1));
      const stamp = fixture.now.toISOString();
      await first.sources.create({
        id: newId('src'), orgId, platform: 'YELP', account: 'biz', name: 'Yelp', state: 'active', everyMinutes: 60, credentials: 'v1.x',
        cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
      });
      const stats = await first.reviews.stats({ orgId, now: fixture.now });
      const removed = await first.reviews.listRemoved(orgId);
      const sources = await first.sources.listByOrg(orgId);
      expect(stats.totalReviews).toBe(all.length - 5);
      await first.close();
      for (let round = 0; round < 2; round++) {
        const again = await EmbeddedStore.open(dir);
        expect(await again.reviews.stats({ orgId, now: fixture.now })).toEqual(stats);
        expect(await again.reviews.listRemoved(orgId)).toEqual(removed);
        expect(await again.sources.listByOrg(orgId)).toEqual(sources);
        // The second round reads the compacted log.
        if (round === 0) await (again as unknown as { compact(): Promise<void> }).compact();
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedded store: webhooks after a restart and a compaction', () => {
  it('replays endpoints, the outbox (fanned out or not) and deliveries, and a compaction keeps them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-webhooks-'));
    try {
      const first = await EmbeddedStore.open(dir);
      const o = org('Hooks');
      await first.orgs.create(o);
      const stamp = '2026-11-21T12:00:00.000Z';
      const endpointId = newId('wh');
      await first.webhooks.create({
        id: endpointId, orgId: o.id, url: 'https://hooks.example/c', events: ['review.created'], description: '', state: 'enabled',
        disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
      const input = (id: string): ReviewInput => ({
        platform: 'GOOGLE', externalId: id, authorName: 'A', authorAvatar: null, rating: 4, content: id, date: stamp, url: null,
        language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [],
      });
      // An import's events, fanned out with it; one of their deliveries then delivered.
      await first.reviews.upsert(o.id, [input('x'), input('y'), input('z')], new Date(stamp));
      const fanned = await first.webhooks.deliveries(endpointId, null, 100);
      expect(fanned).toHaveLength(3);
      const m1 = await first.webhooks.getMessage(fanned[0]!.messageId);
      const delivery: WebhookDelivery = { ...fanned[0]!, status: 'delivered', attempts: 1, lastStatusCode: 200, lastAttemptAt: stamp, nextAttemptAt: null };
      await first.webhooks.putDelivery(delivery);
      // Messages not fanned out yet (test events).
      for (const n of [1, 2]) await first.webhooks.addMessage({ id: `msg_t${n}`, orgId: o.id, type: 'webhook.test', body: `{"n":${n}}`, createdAt: stamp, endpointId });
      const unfanned = await first.webhooks.unfanned(100);
      expect(unfanned).toHaveLength(2);
      const deliveries = await first.webhooks.deliveries(endpointId, null, 100);
      const endpoints = await first.webhooks.listByOrg(o.id);
      await first.close();
      for (let round = 0; round < 2; round++) {
        const again = await EmbeddedStore.open(dir);
        expect(await again.webhooks.listByOrg(o.id)).toEqual(endpoints);
        expect(await again.webhooks.unfanned(100)).toEqual(unfanned);
        expect(await again.webhooks.getMessage(m1!.id)).toEqual(m1);
        expect(await again.webhooks.getDelivery(delivery.id)).toEqual(delivery);
        expect(await again.webhooks.deliveries(endpointId, null, 100)).toEqual(deliveries);
        if (round === 0) await (again as unknown as { compact(): Promise<void> }).compact();
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedded store lock', () => {
  it('refuses a second open while the first holds the OS lock, whatever the lock file says; never deletes it', async () => {
    const { writeFileSync, existsSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'store-lock-'));
    try {
      // A pid in the file means nothing: only the kernel's lock counts (an old server's file is no obstacle).
      writeFileSync(join(dir, 'store.lock'), '999999');
      const first = await EmbeddedStore.open(dir);
      await expect(EmbeddedStore.open(dir)).rejects.toThrow(`DATA_DIR ${dir} is in use by another server (pid ${process.pid}`);
      // The refused open left the holder's lock in place.
      await expect(EmbeddedStore.open(dir)).rejects.toThrow(/in use by another server/);
      await first.orgs.create(org('Still writing'));
      await first.close();
      expect(existsSync(join(dir, 'store.lock'))).toBe(true);
      const results = await Promise.allSettled([EmbeddedStore.open(dir), EmbeddedStore.open(dir)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'fulfilled') await r.value.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedded store compaction', () => {
  it('rewrites a log of mostly superseded records at start-up, keeping exactly the live state', async () => {
    const { statSync, writeFileSync, existsSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'store-compact-'));
    try {
      const fixture = generateFixture({ sizes: [2000, 30] });
      const [a, b] = fixture.orgIds as [string, string];
      const first = await EmbeddedStore.open(dir);
      const o = { ...org('Compact'), id: a };
      await first.orgs.create(o);
      const key = keyRecord(a, 'd');
      await first.keys.create(key);
      await first.keys.revoke(key.id, new Date('2026-11-01T00:00:00Z'));
      // Re-import the same reviews four times: three of every four records are superseded.
      for (let round = 0; round < 4; round++) {
        await first.reviews.upsert(a, fixture.inputs(a).map((r) => ({ ...r, content: `${r.content} (round ${round})` })), fixture.now);
      }
      await first.reviews.upsert(b, fixture.inputs(b), fixture.now); // an organization without an org record
      const hiddenReview = (await first.reviews.list({ orgId: a, limit: 1, offset: 7 })).items[0]!;
      const hidden: ReviewModeration = { reviewId: hiddenReview.id, orgId: a, platform: hiddenReview.platform, reason: 'spam', hiddenAt: fixture.now.toISOString(), hiddenBy: { userId: null, email: 'operator' } };
      await first.moderation.hide(hidden);
      // Superseded records came to dominate while it ran: it compacted then, not only at start-up.
      expect(first.info.compactions).toBeGreaterThan(0);
      const statsBefore = await first.reviews.stats({ orgId: a, now: fixture.now });
      const pageBefore = await first.reviews.list({ orgId: a, limit: 50, offset: 100 });
      const otherBefore = await first.reviews.list({ orgId: b, limit: 100, offset: 0 });
      await first.close();
      const sizeBefore = statSync(join(dir, 'store.log')).size;
      // Leftover of a compaction that crashed before its rename: ignored.
      writeFileSync(join(dir, 'store.log.compact'), 'garbage');

      // At start-up too: a log of superseded records written by an older version (one org record 6,000 times).
      const { DurableLog } = await import('./embedded/durable-log.ts');
      const { log } = await DurableLog.open(join(dir, 'store.log'), () => undefined);
      for (let i = 0; i < 6000; i += 500) await log.append(...Array.from({ length: 500 }, () => ({ t: 'org', v: o })));
      await log.close();
      const grown = statSync(join(dir, 'store.log')).size;
      expect(grown).toBeGreaterThan(sizeBefore);

      const second = await EmbeddedStore.open(dir);
      expect(second.info.compacted).toBe(true);
      expect(statSync(join(dir, 'store.log')).size).toBeLessThan(sizeBefore + 1000);
      expect(existsSync(join(dir, 'store.log.compact'))).toBe(false);
      expect(await second.orgs.get(a)).toEqual(o);
      expect((await second.keys.get(key.id))?.revokedAt).toBe('2026-11-01T00:00:00.000Z');
      expect(await second.reviews.stats({ orgId: a, now: fixture.now })).toEqual(statsBefore);
      expect(await second.reviews.list({ orgId: a, limit: 50, offset: 100 })).toEqual(pageBefore);
      expect(await second.reviews.list({ orgId: b, limit: 100, offset: 0 })).toEqual(otherBefore);
      expect(await second.moderation.listByOrg(a)).toEqual([hidden]);
      expect(pageBefore.items[0]!.content).toMatch(/\(round 3\)$/);
      await second.reviews.upsert(b, fixture.inputs(b).slice(0, 1), fixture.now);
      await second.close();

      const third = await EmbeddedStore.open(dir);
      expect(third.info.compacted).toBe(false);
      expect(await third.reviews.list({ orgId: a, limit: 50, offset: 100 })).toEqual(pageBefore);
      expect(await third.reviews.count(b)).toBe(30);
      await third.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
