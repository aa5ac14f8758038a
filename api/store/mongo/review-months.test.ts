/**
 * The MongoDB store's maintained monthly aggregates (review-months.ts) on a
 * real server: rebuilt when missing, never drifting under concurrent imports
 * of the same reviews, and no marker left behind once read.
 */
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { referenceMonthly, referenceStats } from '../../reviews/fixtures.ts';
import { uniqueDbName } from '../../test/ferretdb.ts';
import { describeOn, mongoTargets } from '../../test/mongo-suites.ts';
import type { ReviewInput } from '../types.ts';
import { MongoStore } from './store.ts';

const NOW = new Date('2026-11-21T12:00:00Z');

function review(externalId: string, date: string, rating: number | null, platform = 'GOOGLE'): ReviewInput {
  return {
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
    sentiment: rating === null ? null : rating / 5,
    sentimentLabel: null,
    aiSummary: null,
    aiThemes: [],
  };
}

for (const target of mongoTargets()) {
  describeOn(target, 'MongoDB monthly aggregates', () => {
    const dbName = uniqueDbName('months');
    let client: MongoClient;
    beforeAll(async () => {
      client = await MongoClient.connect(target.url);
    });
    afterAll(async () => {
      await client.db(dbName).dropDatabase();
      await client.close();
    });

    it('are rebuilt at start when missing, and answer like the reviews', async () => {
      const store = await MongoStore.connect(target.url, dbName);
      const orgId = 'org_rebuild';
      await store.orgs.create({ id: orgId, name: 'R', plan: 'growth', rateLimit: null, language: 'en', createdAt: NOW.toISOString(), updatedAt: NOW.toISOString() });
      await store.reviews.upsert(orgId, [review('a', '2025-03-01T00:00:00Z', 5), review('b', '2026-10-31T23:00:00Z', 2, 'YELP'), review('c', '2026-11-20T00:00:00Z', null)], NOW);
      const range = { orgId, from: '2025-01', to: '2026-12' };
      const before = await store.reviews.monthly(range);
      const stats = await store.reviews.stats({ orgId, now: NOW });
      await store.close();
      // As a database written before the aggregates existed: no aggregates, no markers, no `built` document.
      await client.db(dbName).collection('review_months').drop();
      await client.db(dbName).collection('review_months_dirty').drop().catch(() => undefined);
      const again = await MongoStore.connect(target.url, dbName);
      try {
        expect(await again.reviews.monthly(range)).toEqual(before);
        expect(before).toHaveLength(3);
        expect(await again.reviews.stats({ orgId, now: NOW })).toEqual(stats);
        expect(await client.db(dbName).collection('review_months_dirty').countDocuments({ orgId })).toBe(0);
      } finally {
        await again.close();
      }
    });

    it('never drift when two stores import the same reviews with different months and ratings at once', async () => {
      const a = await MongoStore.connect(target.url, dbName);
      const b = await MongoStore.connect(target.url, dbName);
      try {
        const orgId = 'org_race';
        const batch = (month: string, rating: number) => Array.from({ length: 30 }, (_, i) => review(`r${i}`, `2026-${month}-0${1 + (i % 9)}T00:00:00Z`, rating, i % 2 ? 'GOOGLE' : 'YELP'));
        for (let round = 0; round < 3; round++) {
          await Promise.all([a.reviews.upsert(orgId, batch('04', 5), NOW), b.reviews.upsert(orgId, batch('07', 1), NOW), a.reviews.stats({ orgId, now: NOW })]);
        }
        const all = (await a.reviews.list({ orgId, limit: 100, offset: 0 })).items;
        expect(all).toHaveLength(30);
        const range = { orgId, from: '2026-01', to: '2026-12' };
        expect(await b.reviews.monthly(range)).toEqual(referenceMonthly(all, range));
        expect(await a.reviews.stats({ orgId, now: NOW })).toEqual(referenceStats(all, { orgId, now: NOW }));
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
