/**
 * Chains (CONTRACT §15): an organization connects several sources of one platform (a Google
 * location per shop), each listed by its name with its own review count; the same platform
 * account twice is still refused (409 naming the source that has it); a full pass of one
 * location removes only what that location collected; and an organization has at most
 * MAX_SOURCES sources. Against the local HTTPS platform fake, on both stores.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../errors.ts';
import { InProcessJobs } from '../jobs/in-process.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { Organization, Store } from '../store/types.ts';
import { HttpClient } from './http.ts';
import { dueSources, MAX_SOURCES, SourcesService } from './service.ts';
import type { SyncSummary } from './sync.ts';
import { googleReviews, trustpilotReviews } from './testing/generate.ts';
import { PlatformFake } from './testing/platform-fake.ts';
import { storeSubjects } from './testing/subjects.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 7));
/** Bound of every wait for the background sync (a loaded machine). */
const WAIT = { timeout: 30_000, interval: 50 };

for (const subject of storeSubjects('sources-chains')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`chains: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fake: PlatformFake;
    let http: HttpClient;
    let jobs: InProcessJobs<SyncSummary>;
    let sources: SourcesService;

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      fake = await PlatformFake.start();
      http = new HttpClient({ extraCa: [fake.ca] });
      const deps = { store, box, http, urls: fake.urls(), googleOAuth: { clientId: 'client-id', clientSecret: 'client-secret' }, logger, pool: null, minuteMs: 60_000 };
      jobs = new InProcessJobs({ handler: SourcesService.handler(deps), logger, due: (now) => dueSources(store, now), tickMs: 3_600_000 });
      sources = new SourcesService(store, box, jobs, 60_000, { http, urls: fake.urls(), googleOAuth: deps.googleOAuth });
    }, 60_000);
    afterAll(async () => {
      await jobs.close();
      http.close();
      await fake.close();
      await cleanup();
    });

    async function newOrg(): Promise<Organization> {
      const stamp = new Date().toISOString();
      const org: Organization = { id: newId('org'), name: 'Chain', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
      await store.orgs.create(org);
      return org;
    }

    async function refused(promise: Promise<unknown>): Promise<ApiError> {
      const err = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      return err as ApiError;
    }

    /** The organization's sources as `sources list` shows them, once every first sync has ended. */
    const listed = (orgId: string, expected: number) =>
      vi.waitFor(async () => {
        const list = await sources.list(orgId);
        expect(list.filter((s) => s.lastResult?.outcome === 'succeeded')).toHaveLength(expected);
        return list;
      }, WAIT);

    it('connects two Google locations of one organization, each listed by its name with its own reviews; the same location again is a 409 naming its source', async () => {
      const org = await newOrg();
      const north = `accounts/1/locations/north-${org.id}`;
      const south = `accounts/1/locations/south-${org.id}`;
      fake.googleByLocation.set(north, googleReviews(3, Date.parse('2026-11-20T12:00:00Z'), `n-${org.id}`));
      fake.googleByLocation.set(south, googleReviews(2, Date.parse('2026-11-21T12:00:00Z'), `s-${org.id}`));
      const credentials = { refreshToken: fake.keys.googleRefresh };
      const a = await sources.add({ orgId: org.id, platform: 'google', account: north, name: 'Chain North', credentials });
      const b = await sources.add({ orgId: org.id, platform: 'google', account: south, name: 'Chain South', credentials });
      const list = await listed(org.id, 2);
      expect(list.map((s) => [s.platform, s.name, s.account, s.reviewCount])).toEqual([
        ['google', 'Chain North', north, 3],
        ['google', 'Chain South', south, 2],
      ]);
      // Each review records the location that collected it.
      const all = (await store.reviews.list({ orgId: org.id, limit: 100, offset: 0 })).items;
      expect(all.filter((r) => r.sourceId === a.id).map((r) => r.externalId).sort()).toEqual(fake.googleByLocation.get(north)!.map((r) => r.reviewId).sort());
      expect(all.filter((r) => r.sourceId === b.id)).toHaveLength(2);

      const requests = fake.requests.length;
      const again = await refused(sources.add({ orgId: org.id, platform: 'google', account: ` ${north} `, name: 'Again', credentials }));
      expect(again.status).toBe(409);
      expect(again.message).toContain('“Chain North”');
      expect(again.message).toContain(a.id);
      // Refused before the platform is asked, and nothing stored.
      expect(fake.requests.length).toBe(requests);
      expect(await store.sources.listByOrg(org.id)).toHaveLength(2);

      // A Trustpilot business unit beside them, and a second one: accepted too; the first again is not.
      const unit = `bu-chain-${org.id}`;
      fake.trustpilotUnits.set(unit, trustpilotReviews(4, Date.parse('2026-11-20T12:00:00Z'), `tp-${org.id}`));
      fake.trustpilotUnits.set(`${unit}-2`, trustpilotReviews(1, Date.parse('2026-11-20T12:00:00Z'), `tp2-${org.id}`));
      await sources.add({ orgId: org.id, platform: 'trustpilot', account: unit, credentials: { apiKey: fake.keys.trustpilot } });
      await sources.add({ orgId: org.id, platform: 'trustpilot', account: `${unit}-2`, credentials: { apiKey: fake.keys.trustpilot } });
      expect((await listed(org.id, 4)).map((s) => s.reviewCount)).toEqual([3, 2, 4, 1]);
      expect((await refused(sources.add({ orgId: org.id, platform: 'trustpilot', account: unit.toUpperCase(), credentials: { apiKey: fake.keys.trustpilot } }))).status).toBe(409);
    });

    it('removes, on a full pass of one location, only what that location collected', async () => {
      const org = await newOrg();
      const north = `accounts/2/locations/north-${org.id}`;
      const south = `accounts/2/locations/south-${org.id}`;
      fake.googleByLocation.set(north, googleReviews(4, Date.parse('2026-11-20T12:00:00Z'), `rn-${org.id}`));
      fake.googleByLocation.set(south, googleReviews(3, Date.parse('2026-11-21T12:00:00Z'), `rs-${org.id}`));
      const credentials = { refreshToken: fake.keys.googleRefresh };
      const a = await sources.add({ orgId: org.id, platform: 'google', account: north, name: 'North', credentials });
      const b = await sources.add({ orgId: org.id, platform: 'google', account: south, name: 'South', credentials });
      await listed(org.id, 2);
      // The north location no longer lists one of its reviews: its full pass removes that one, never the south's (which it never lists).
      fake.googleByLocation.set(north, fake.googleByLocation.get(north)!.slice(1));
      expect(await sources.sync(a.id, true)).toMatchObject({ removed: 1 });
      expect(await sources.sync(b.id, true)).toMatchObject({ removed: 0 });
      expect((await sources.list(org.id)).map((s) => s.reviewCount)).toEqual([3, 3]);
      expect(await store.reviews.count(org.id)).toBe(6);
    });

    it(`caps an organization at ${MAX_SOURCES} sources: the next is a 409 saying so, before the platform is asked`, async () => {
      const org = await newOrg();
      const stamp = new Date().toISOString();
      for (let i = 0; i < MAX_SOURCES; i++) {
        await store.sources.create({
          id: newId('src'), orgId: org.id, platform: 'GOOGLE', account: `accounts/9/locations/l${i}`, name: `Shop ${i}`, state: 'paused', everyMinutes: 60,
          credentials: box.sealJson({ refreshToken: 'x' }, 'src_x'), cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
        });
      }
      const requests = fake.requests.length;
      const err = await refused(sources.add({ orgId: org.id, platform: 'trustpilot', account: `bu-cap-${org.id}`, credentials: { apiKey: fake.keys.trustpilot } }));
      expect([err.status, err.code]).toEqual([409, 'source_limit_reached']);
      expect(err.message).toMatch(new RegExp(`already has ${MAX_SOURCES} sources, the most it may have \\(${MAX_SOURCES}\\): remove one first`));
      expect(fake.requests.length).toBe(requests);
      expect(await store.sources.listByOrg(org.id)).toHaveLength(MAX_SOURCES);
    });
  });
}
