/**
 * Reviews filtered by the source that collected them (CONTRACT §15, chains: a widget of one
 * location's reviews), one suite for every store: the embedded store, and the MongoDB store on
 * the FerretDB that global-setup started (a named skip outside CI when there is none) and on
 * MONGODB_URL when set. Answers are compared with the brute-force reference over the generated
 * fixture, whose reviews are given to three sources, or to none (a file import).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFixture, referenceList, referenceStats, type ReviewFixture } from '../reviews/fixtures.ts';
import { EmbeddedStore } from './embedded/store.ts';
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
      const dir = mkdtempSync(join(tmpdir(), 'source-contract-'));
      let store = await EmbeddedStore.open(dir);
      return {
        get store() {
          return store;
        },
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
      const store = await openMongoStore(target, 'sources');
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

/** Two Google locations, a Trustpilot unit, and file imports (no source), by the review's place in the fixture. */
const SOURCES = ['src_LocationNorth', 'src_LocationNorth', 'src_LocationSouth', 'src_TrustpilotUnit', undefined] as const;
const withSource = (input: ReviewInput, i: number): ReviewInput => {
  const sourceId = SOURCES[i % SOURCES.length];
  const { sourceId: _none, ...rest } = input;
  return sourceId === undefined ? rest : { ...rest, sourceId };
};

const QUERIES_OF = (orgId: string, since: Date) => [
  { orgId, sourceIds: ['src_LocationNorth'] },
  { orgId, sourceIds: ['src_LocationSouth', 'src_TrustpilotUnit'] },
  { orgId, sourceIds: ['src_LocationNorth', 'src_LocationNorth'] },
  { orgId, sourceIds: ['src_LocationNorth'], platforms: ['GOOGLE', 'YELP'] },
  { orgId, sourceIds: ['src_LocationSouth'], minRating: 4 },
  { orgId, sourceIds: ['src_LocationNorth', 'src_LocationSouth'], language: 'en' },
  { orgId, sourceIds: ['src_TrustpilotUnit'], language: 'fr', platforms: ['GOOGLE'], maxRating: 3 },
  { orgId, sourceIds: ['src_LocationNorth'], since },
  { orgId, sourceIds: ['src_NoSuchSource'] },
  { orgId, sourceIds: [] as string[] },
];

for (const subject of subjects) {
  const skipped = subject.target && !subject.target.url;
  const suite = skipped ? describe.skip : describe;
  suite(skipped ? `source contract: ${subject.name} [SKIPPED: ${subject.target!.missing}]` : `source contract: ${subject.name}`, () => {
    let opened: Awaited<ReturnType<Subject['open']>>;
    let fixture: ReviewFixture;
    const stored = new Map<string, Review[]>();
    const store = (): Store => opened.store;

    beforeAll(async () => {
      opened = await subject.open();
      fixture = generateFixture({ sizes: subject.target ? [60, 30] : [700, 150] });
      for (const orgId of fixture.orgIds) {
        const inputs = fixture.inputs(orgId).map(withSource);
        for (let i = 0; i < inputs.length; i += 250) await store().reviews.upsert(orgId, inputs.slice(i, i + 250), fixture.now);
        stored.set(orgId, (await store().reviews.list({ orgId, limit: 100_000, offset: 0 })).items);
      }
    }, 120_000);
    afterAll(async () => opened.cleanup());

    it('lists the reviews of the sources named exactly, alone and with the other filters, at any offset', async () => {
      for (const orgId of fixture.orgIds) {
        const mine = stored.get(orgId)!;
        // The last organization has no review at all.
        if (orgId === fixture.orgIds[0]) expect(mine.filter((r) => r.sourceId === 'src_LocationNorth').length).toBeGreaterThan(0);
        for (const q of QUERIES_OF(orgId, fixture.sinceCandidates[Math.floor(fixture.sinceCandidates.length / 2)]!)) {
          for (const [offset, limit] of [[0, 20], [7, 5], [40, 100]] as const) {
            const expected = referenceList(mine, { ...q, offset, limit });
            const got = await store().reviews.list({ ...q, offset, limit });
            expect(got.total, `${JSON.stringify(q)} @${offset}`).toBe(expected.total);
            expect(got.items.map((r) => r.id)).toEqual(expected.items.map((r) => r.id));
          }
        }
      }
    });

    it('answers the statistics of the sources named exactly (two sources of one platform added up)', async () => {
      for (const orgId of fixture.orgIds) {
        for (const sourceIds of [['src_LocationNorth'], ['src_LocationNorth', 'src_LocationSouth'], ['src_TrustpilotUnit', 'src_LocationSouth', 'src_LocationNorth'], ['src_NoSuchSource'], []]) {
          for (const platforms of [undefined, ['GOOGLE'], ['TRUSTPILOT', 'G2']]) {
            const q = { orgId, now: fixture.now, sourceIds, ...(platforms && { platforms }) };
            expect(await store().reviews.stats(q), JSON.stringify(q)).toEqual(referenceStats(stored.get(orgId)!, q));
          }
        }
      }
    });

    it('follows a review from source to source, out with a removal or a disown, and keeps it through a file import', async () => {
      const orgId = fixture.orgIds[0]!;
      const north = (): Promise<number> => store().reviews.list({ orgId, sourceIds: ['src_LocationNorth'], limit: 1, offset: 0 }).then((p) => p.total);
      const south = (): Promise<number> => store().reviews.list({ orgId, sourceIds: ['src_LocationSouth'], limit: 1, offset: 0 }).then((p) => p.total);
      const [n0, s0] = [await north(), await south()];
      const one = stored.get(orgId)!.find((r) => r.sourceId === 'src_LocationNorth')!;
      const { id: _i, orgId: _o, createdAt: _c, updatedAt: _u, ...input } = one;
      // A file import of it (no sourceId) keeps the source that collected it.
      await store().reviews.upsert(orgId, [{ ...input, sourceId: undefined, content: `${one.content} (edited)` } as ReviewInput], fixture.now);
      expect([await north(), await south()]).toEqual([n0, s0]);
      // Another source collects it: it moves.
      await store().reviews.upsert(orgId, [{ ...input, sourceId: 'src_LocationSouth' }], fixture.now);
      expect([await north(), await south()]).toEqual([n0 - 1, s0 + 1]);
      expect((await store().reviews.stats({ orgId, now: fixture.now, sourceIds: ['src_LocationSouth'] })).totalReviews).toBe(s0 + 1);
      // Kept by a person after a hold: no longer counted as that source's.
      expect(await store().reviews.disown(orgId, one.platform, [one.externalId], 'src_LocationSouth')).toBe(1);
      expect([await north(), await south()]).toEqual([n0 - 1, s0]);
      // Removed: out of every source's list and statistics.
      const other = stored.get(orgId)!.find((r) => r.sourceId === 'src_LocationNorth' && r.id !== one.id)!;
      const later = new Date(fixture.now.getTime() + 60_000);
      expect(await store().reviews.remove(orgId, other.platform, [other.externalId], later, later)).toBe(1);
      expect(await north()).toBe(n0 - 2);
      expect((await store().reviews.stats({ orgId, now: fixture.now, sourceIds: ['src_LocationNorth'] })).totalReviews).toBe(n0 - 2);
      if (opened.reopen) {
        // The embedded store rebuilds the per-source lists from its log.
        await opened.reopen();
        expect([await north(), await south()]).toEqual([n0 - 2, s0]);
      }
    });
  });
}
