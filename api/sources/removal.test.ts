/**
 * "A removal is never a guess" and "an unchanged review writes nothing"
 * (CONTRACT §11; issue 34 items 3 and 9), against the local HTTPS fakes of the
 * platforms, on both stores: an answer that is not the platform's documented
 * shape fails the sync and removes nothing; a full pass removes only what its
 * source collected (a file import survives it, and is adopted once seen); a
 * large removal is held for a person (release removes and sends
 * review.removed, keep clears the hold for good); an identical full pass
 * writes nothing, counts nothing and sends nothing.
 */
import { statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importReviews } from '../admin/import.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { MongoStore } from '../store/mongo/store.ts';
import type { Organization, Source, SourcePlatform, Store } from '../store/types.ts';
import { HttpClient } from './http.ts';
import { SourcesService } from './service.ts';
import { syncSource, type SyncDeps, type SyncSummary } from './sync.ts';
import { PlatformFake } from './testing/platform-fake.ts';
import { storeSubjects } from './testing/subjects.ts';
import { trustpilotReviews } from './testing/generate.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 9));

for (const subject of storeSubjects('sources-removal')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`removal is never a guess: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fake: PlatformFake;
    let http: HttpClient;
    let deps: SyncDeps;
    let service: SourcesService;

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      fake = await PlatformFake.start();
      http = new HttpClient({ extraCa: [fake.ca] });
      deps = { store, box, http, urls: fake.urls(), googleOAuth: { clientId: 'client-id', clientSecret: 'client-secret' }, logger, pool: null, sleep: async () => undefined };
      // Release and keep use the store only: the jobs (schedules, sync now) are not called.
      const noJobs = {} as Jobs<SyncSummary>;
      service = new SourcesService(store, box, noJobs, 60_000, { http, urls: fake.urls(), googleOAuth: deps.googleOAuth });
    }, 60_000);
    afterAll(async () => {
      http.close();
      await fake.close();
      await cleanup();
    });

    async function newOrg(): Promise<Organization> {
      const stamp = new Date().toISOString();
      const org: Organization = { id: newId('org'), name: 'Removal', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
      await store.orgs.create(org);
      return org;
    }

    async function newSource(org: Organization, platform: SourcePlatform, account: string, credentials: unknown): Promise<Source> {
      const id = newId('src');
      const stamp = new Date().toISOString();
      const source: Source = {
        id, orgId: org.id, platform, account, name: platform, state: 'active', everyMinutes: 60, credentials: box.sealJson(credentials, id),
        cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
      };
      await store.sources.create(source);
      return source;
    }

    /** An endpoint, so the organization's review changes record their events (the outbox). */
    async function endpoint(org: Organization): Promise<string> {
      const id = newId('wh');
      const stamp = new Date().toISOString();
      await store.webhooks.create({
        id, orgId: org.id, url: 'https://receiver.invalid/hook', events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: '[]',
      });
      return id;
    }

    /** Every event recorded for the organization, by type: fanned out to the endpoint, or still in the outbox. */
    async function events(org: Organization, endpointId: string): Promise<Record<string, number>> {
      if (store instanceof MongoStore) while ((await store.relayOutbox(1000)) > 0);
      const types = [
        ...(await store.webhooks.unfanned(100_000)).filter((m) => m.orgId === org.id).map((m) => m.type),
        ...(await store.webhooks.deliveries(endpointId, null, 100_000)).map((d) => d.type),
      ];
      const counts: Record<string, number> = {};
      for (const t of types) counts[t] = (counts[t] ?? 0) + 1;
      return counts;
    }

    const audits = async (org: Organization) => (await store.people.audit.listByOrg(org.id, 100)).map((a) => ({ action: a.action, count: a.details.count, how: a.details.how, words: a.details.words }));

    it('a 200 that is not the documented shape fails the sync, sets lastError and removes nothing, on every platform', async () => {
      const org = await newOrg();
      const at = (i: number) => new Date(Date.parse('2026-11-10T12:00:00Z') - i * 3600_000).toISOString();
      fake.trustpilotUnits.set(`bu-shape-${org.id}`, trustpilotReviews(30, Date.parse('2026-11-10T12:00:00Z'), `tp-s-${org.id}`));
      fake.google = Array.from({ length: 30 }, (_, i) => ({ reviewId: `g-s-${org.id}-${i}`, reviewer: { displayName: `Guest ${i}` }, starRating: 'FOUR', comment: `Visit ${i}.`, createTime: at(i), updateTime: at(i) }));
      fake.facebook = Array.from({ length: 30 }, (_, i) => ({ created_time: at(i).replace(/\.\d{3}Z$/, '+0000'), rating: 5, review_text: `Page visit ${i}.`, reviewer: { name: `Fan ${i}` }, open_graph_story: { id: `fb-s-${org.id}-${i}` } }));
      fake.g2 = Array.from({ length: 30 }, (_, i) => ({ id: `g2-s-${org.id}-${i}`, type: 'survey_responses', attributes: { star_rating: 4.5, title: `Useful ${i}`, submitted_at: at(i), user_name: `User ${i}` } }));
      fake.yelp = [{ id: `y-s-${org.id}`, text: 'Tacos.', rating: 4, time_created: '2026-11-01 10:00:00', user: { name: 'Ana' } }];
      const sources = {
        trustpilot: await newSource(org, 'TRUSTPILOT', `bu-shape-${org.id}`, { apiKey: fake.keys.trustpilot }),
        google: await newSource(org, 'GOOGLE', 'accounts/1/locations/2', { refreshToken: fake.keys.googleRefresh }),
        facebook: await newSource(org, 'FACEBOOK', '1049581', { pageAccessToken: fake.keys.facebook }),
        g2: await newSource(org, 'G2', 'product-1', { apiToken: fake.keys.g2 }),
        yelp: await newSource(org, 'YELP', 'acme-tacos', { apiKey: fake.keys.yelp }),
      } as const;
      for (const s of Object.values(sources)) expect((await syncSource(deps, s.id)).error).toBeNull();
      expect(await store.reviews.count(org.id)).toBe(121);

      const malformed: Record<keyof typeof sources, unknown[]> = {
        trustpilot: [{}, { message: 'Service temporarily unavailable' }, { reviews: 'none' }, { reviews: [1, 2] }, { reviews: [], links: 'next' }, { reviews: [], links: [{ rel: 'next-page' }] }, []],
        google: [{}, { error: { message: 'Backend Error' } }, { reviews: null }, { reviews: ['x'] }, { reviews: [], nextPageToken: 7 }],
        facebook: [{}, { data: {} }, { data: [null] }, { data: [], paging: { next: 'https://graph.facebook.com/x' } }, { data: [], paging: 'more' }],
        g2: [{}, { errors: [{ status: '503' }] }, { data: 'x' }, { data: [], links: { next: 5 } }, { data: [[]] }],
        yelp: [{}, { reviews: {} }],
      };
      for (const [platform, bodies] of Object.entries(malformed) as [keyof typeof sources, unknown[]][]) {
        for (const body of bodies) {
          fake.malformed(platform, body);
          const outcome = await syncSource(deps, sources[platform].id, { full: true });
          const what = `${platform} ${JSON.stringify(body)}`;
          expect(outcome.error, what).toMatch(/answered something that is not its documented shape \(.+\): that answer was not used and nothing was removed/);
          expect(outcome.summary, what).toMatchObject({ created: 0, updated: 0, removed: 0 });
          expect((await store.sources.get(sources[platform].id))!.lastError, what).toMatch(/documented shape/);
          expect(await store.reviews.count(org.id), what).toBe(121);
        }
      }
      // An answer understood again: the sync succeeds and the error is gone.
      const back = await syncSource(deps, sources.trustpilot.id, { full: true });
      expect([back.error, back.summary.removed]).toEqual([null, 0]);
      expect(await store.sources.get(sources.trustpilot.id)).toMatchObject({ lastError: null, failures: 0, state: 'active' });
      expect(await store.reviews.listRemoved(org.id)).toEqual([]);
      fake.trustpilotUnits.delete(`bu-shape-${org.id}`);
    }, 120_000);

    it('a full pass removes only what its source collected: file imports survive the first one, and one the source sees is adopted', async () => {
      const org = await newOrg();
      // 53 reviews imported from a file; the platform lists 2 of them (one with the same text, one edited) and 130 others.
      // (Exported with the platform's own address, as the mapping gives it.)
      const file = Array.from({ length: 53 }, (_, i) =>
        JSON.stringify({ platform: 'TRUSTPILOT', externalId: `tp-file-${org.id}-${i}`, authorName: `Old ${i}`, rating: 4, content: `Imported text ${i}`, date: '2025-01-01T00:00:00Z', url: `https://www.trustpilot.com/reviews/tp-file-${org.id}-${i}` }),
      ).join('\n');
      expect((await importReviews(store, org, Readable.from([Buffer.from(`${file}\n`)]), 'ndjson', logger, null)).imported).toBe(53);
      const listed = trustpilotReviews(130, Date.parse('2026-11-20T12:00:00Z'), `tp-a-${org.id}`);
      listed.push(
        { id: `tp-file-${org.id}-0`, stars: 4, title: '', text: 'Imported text 0', createdAt: '2025-01-01T00:00:00Z', consumer: { displayName: 'Old 0' } },
        { id: `tp-file-${org.id}-1`, stars: 2, title: '', text: 'Edited on the platform', createdAt: '2025-01-01T00:00:00Z', consumer: { displayName: 'Old 1' } },
      );
      fake.trustpilotUnits.set(`bu-adopt-${org.id}`, listed);
      const source = await newSource(org, 'TRUSTPILOT', `bu-adopt-${org.id}`, { apiKey: fake.keys.trustpilot });

      const first = await syncSource(deps, source.id);
      // The same text: adopted without counting as a change; the edited one is an update.
      expect(first.summary).toMatchObject({ fetched: 132, created: 130, updated: 1, removed: 0 });
      expect(await store.reviews.count(org.id)).toBe(183);
      const marked = await store.reviews.findByExternalIds(org.id, 'TRUSTPILOT', [`tp-file-${org.id}-0`, `tp-file-${org.id}-1`, `tp-file-${org.id}-2`]);
      expect(Object.fromEntries(marked.map((r) => [r.externalId, r.sourceId ?? null]))).toEqual({ [`tp-file-${org.id}-0`]: source.id, [`tp-file-${org.id}-1`]: source.id, [`tp-file-${org.id}-2`]: null });
      expect((await store.reviews.externalIds(org.id, 'TRUSTPILOT', source.id)).length).toBe(132);

      // A file re-import of an adopted review keeps it collected.
      const again = JSON.stringify({ platform: 'TRUSTPILOT', externalId: `tp-file-${org.id}-0`, authorName: 'Old 0', rating: 4, content: 'Imported text 0', date: '2025-01-01T00:00:00Z', url: `https://www.trustpilot.com/reviews/tp-file-${org.id}-0` });
      await importReviews(store, org, Readable.from([Buffer.from(`${again}\n`)]), 'ndjson', logger, null);
      expect((await store.reviews.findByExternalIds(org.id, 'TRUSTPILOT', [`tp-file-${org.id}-0`]))[0]!.sourceId).toBe(source.id);

      // The platform no longer lists an adopted review: it was collected, so it goes; the 51 file-only ones stay.
      fake.trustpilotUnits.set(`bu-adopt-${org.id}`, listed.filter((r) => r.id !== `tp-file-${org.id}-0`));
      const full = await syncSource(deps, source.id, { full: true });
      expect(full.summary).toMatchObject({ removed: 1, created: 0, updated: 0 });
      expect((await store.reviews.listRemoved(org.id)).map((r) => r.externalId)).toEqual([`tp-file-${org.id}-0`]);
      expect(await store.reviews.count(org.id)).toBe(182);
      expect(await audits(org)).toContainEqual({ action: 'reviews.removed', count: '1', how: 'sync', words: '1 review Trustpilot no longer lists' });
      fake.trustpilotUnits.delete(`bu-adopt-${org.id}`);
    });

    it('a full pass that would remove more than 10 % holds them; release removes them (review.removed sent), keep clears the hold for good', async () => {
      const org = await newOrg();
      const hook = await endpoint(org);
      const all = trustpilotReviews(60, Date.parse('2026-11-20T12:00:00Z'), `tp-h-${org.id}`);
      fake.trustpilotUnits.set(`bu-hold-${org.id}`, all);
      const source = await newSource(org, 'TRUSTPILOT', `bu-hold-${org.id}`, { apiKey: fake.keys.trustpilot });
      expect((await syncSource(deps, source.id)).summary.created).toBe(60);

      // 5 gone (not more than 5): removed at once.
      fake.trustpilotUnits.set(`bu-hold-${org.id}`, all.slice(5));
      expect((await syncSource(deps, source.id, { full: true })).summary).toMatchObject({ removed: 5 });
      expect((await store.sources.get(source.id))!.held ?? null).toBeNull();
      // 10 more of the 55 (18 %): held, nothing removed.
      fake.trustpilotUnits.set(`bu-hold-${org.id}`, all.slice(15));
      const held = await syncSource(deps, source.id, { full: true });
      expect(held.error).toBeNull();
      expect(held.summary).toMatchObject({ removed: 0, held: 10 });
      expect(await store.reviews.count(org.id)).toBe(55);
      expect((await service.list(org.id))[0]).toMatchObject({ id: source.id, heldRemovals: 10, state: 'active' });
      expect(await audits(org)).toContainEqual({ action: 'reviews.removal_held', count: '10', how: 'sync', words: "10 reviews Trustpilot no longer lists: more than 10 % of the source's reviews, waiting for Remove them or Keep them" });
      // The next full pass finds the same: still held, still nothing removed.
      expect((await syncSource(deps, source.id, { full: true })).summary).toMatchObject({ removed: 0, held: 10 });
      expect(await store.reviews.count(org.id)).toBe(55);
      expect((await events(org, hook))['review.removed']).toBe(5);

      expect(await service.releaseRemovals(source.id)).toEqual({ id: source.id, removed: 10 });
      expect(await store.reviews.count(org.id)).toBe(45);
      expect((await service.list(org.id))[0]!.heldRemovals).toBe(0);
      expect((await events(org, hook))['review.removed']).toBe(15);
      expect(await audits(org)).toContainEqual({ action: 'reviews.removed', count: '10', how: 'released', words: '10 reviews Trustpilot no longer lists, after Remove them' });
      expect(await service.releaseRemovals(source.id)).toEqual({ id: source.id, removed: 0 });

      // Keep: 20 of the 45 gone → held; kept, they stay, and no later pass removes or holds them.
      fake.trustpilotUnits.set(`bu-hold-${org.id}`, all.slice(35));
      expect((await syncSource(deps, source.id, { full: true })).summary).toMatchObject({ removed: 0, held: 20 });
      expect(await service.keepRemovals(source.id)).toEqual({ id: source.id, kept: 20 });
      expect((await service.list(org.id))[0]!.heldRemovals).toBe(0);
      expect(await audits(org)).toContainEqual({ action: 'reviews.removal_kept', count: '20', how: 'kept', words: '20 reviews Trustpilot no longer lists, kept' });
      const after = await syncSource(deps, source.id, { full: true });
      expect(after.summary).toMatchObject({ removed: 0 });
      expect(after.summary.held).toBeUndefined();
      expect(await store.reviews.count(org.id)).toBe(45);
      expect((await events(org, hook))['review.removed']).toBe(15);
      fake.trustpilotUnits.delete(`bu-hold-${org.id}`);
    });

    it('a hold is written once: later syncs (incremental, or a full pass finding the same) append no held id; a review listed again drops out of the hold, and only it is written', async () => {
      const org = await newOrg();
      const all = trustpilotReviews(1000, Date.parse('2026-11-20T12:00:00Z'), `tp-once-${org.id}`);
      fake.trustpilotUnits.set(`bu-once-${org.id}`, all);
      const source = await newSource(org, 'TRUSTPILOT', `bu-once-${org.id}`, { apiKey: fake.keys.trustpilot });
      expect((await syncSource(deps, source.id)).summary.created).toBe(1000);
      // The platform stops listing the 600 oldest: held.
      fake.trustpilotUnits.set(`bu-once-${org.id}`, all.slice(0, 400));
      expect((await syncSource(deps, source.id, { full: true })).summary).toMatchObject({ removed: 0, held: 600 });
      const logPath = store instanceof EmbeddedStore ? store.info.path : null;
      const grew = async (run: () => Promise<unknown>): Promise<number> => {
        const size = logPath ? statSync(logPath).size : 0;
        await run();
        return logPath ? statSync(logPath).size - size : 0;
      };
      // Incremental syncs with nothing new: the source's own update only (before: the 600 ids, ~16 KiB, each time).
      for (let i = 0; i < 3; i++) expect(await grew(() => syncSource(deps, source.id))).toBeLessThan(2048);
      // The daily full pass finding the same 600: still held, the hold not written again, not audited again.
      let again: Awaited<ReturnType<typeof syncSource>> | null = null;
      expect(await grew(async () => (again = await syncSource(deps, source.id, { full: true })))).toBeLessThan(2048);
      expect(again!.summary).toMatchObject({ removed: 0, held: 600 });
      expect((await audits(org)).filter((a) => a.action === 'reviews.removal_held').length).toBe(1);
      expect((await service.list(org.id))[0]!.heldRemovals).toBe(600);
      // One held review listed again, on the one page an incremental pass reads: out of the hold; only it is written.
      const back = all[400]!;
      fake.trustpilotUnits.set(`bu-once-${org.id}`, [back, ...all.slice(0, 99)]);
      expect(await grew(() => syncSource(deps, source.id))).toBeLessThan(2048);
      expect((await service.list(org.id))[0]!.heldRemovals).toBe(599);
      expect(await service.releaseRemovals(source.id)).toEqual({ id: source.id, removed: 599 });
      expect(await store.reviews.count(org.id)).toBe(401);
      expect(await store.reviews.findByExternalIds(org.id, 'TRUSTPILOT', [back.id])).toHaveLength(1);
      fake.trustpilotUnits.delete(`bu-once-${org.id}`);
    }, 180_000);

    it('an identical full pass writes no review, counts nothing and sends nothing; one changed review is one update', async () => {
      const org = await newOrg();
      const hook = await endpoint(org);
      const listed = trustpilotReviews(120, Date.parse('2026-11-20T12:00:00Z'), `tp-i-${org.id}`);
      fake.trustpilotUnits.set(`bu-same-${org.id}`, listed);
      const source = await newSource(org, 'TRUSTPILOT', `bu-same-${org.id}`, { apiKey: fake.keys.trustpilot });
      expect((await syncSource(deps, source.id)).summary).toMatchObject({ created: 120, updated: 0 });
      expect(await events(org, hook)).toEqual({ 'review.created': 120 });
      const before = (await store.reviews.list({ orgId: org.id, limit: 1000, offset: 0 })).items;
      const logPath = store instanceof EmbeddedStore ? store.info.path : null;
      const size = logPath ? statSync(logPath).size : 0;

      const same = await syncSource(deps, source.id, { full: true });
      expect(same.summary).toMatchObject({ fetched: 120, created: 0, updated: 0, removed: 0 });
      // Only the source's own record is written (its last sync), never the 120 reviews (~60 KB).
      if (logPath) expect(statSync(logPath).size - size).toBeLessThan(2048);
      expect((await store.reviews.list({ orgId: org.id, limit: 1000, offset: 0 })).items).toEqual(before);

      listed[7]!.text = 'Changed my mind: awful, never again.';
      const one = await syncSource(deps, source.id, { full: true });
      expect(one.summary).toMatchObject({ created: 0, updated: 1, removed: 0 });
      // One review.updated: the identical pass sent none.
      expect(await events(org, hook)).toEqual({ 'review.created': 120, 'review.updated': 1 });
      const changed = (await store.reviews.findByExternalIds(org.id, 'TRUSTPILOT', [`tp-i-${org.id}-7`]))[0]!;
      // The AI fields follow the new text.
      expect(changed).toMatchObject({ content: 'Review number 7\n\nChanged my mind: awful, never again.', sentimentLabel: 'NEGATIVE' });
      fake.trustpilotUnits.delete(`bu-same-${org.id}`);
    }, 120_000);
  });
}
