/**
 * The sync against local HTTPS fakes of the platforms (testing/platform-fake.ts),
 * on both stores: paging, the cursor (an idle sync is one request), edits,
 * removal and return, the file import's door, quotas, authorization failures
 * and the `failing` state.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importReviews } from '../admin/import.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { Organization, Source, SourcePlatform, Store } from '../store/types.ts';
import { facebookRatings, g2Responses, googleReviews, yelpReviews } from './fixtures.ts';
import { HttpClient } from './http.ts';
import { syncSource, type SyncDeps } from './sync.ts';
import { PlatformFake } from './testing/platform-fake.ts';
import { storeSubjects } from './testing/subjects.ts';
import { trustpilotReviews } from './testing/generate.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 9));

for (const subject of storeSubjects('sources-sync')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`source sync: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fake: PlatformFake;
    let http: HttpClient;
    const waits: number[] = [];
    let deps: SyncDeps;

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      fake = await PlatformFake.start();
      // The fake's self-signed CA is handed to the client (system CAs + NODE_EXTRA_CA_CERTS + this one).
      http = new HttpClient({ extraCa: [fake.ca] });
      deps = {
        store, box, http, urls: fake.urls(), googleOAuth: { clientId: 'client-id', clientSecret: 'client-secret' }, logger, pool: null,
        sleep: async (ms) => void waits.push(ms),
      };
    }, 60_000);
    afterAll(async () => {
      http.close();
      await fake.close();
      await cleanup();
    });

    async function newOrg(): Promise<Organization> {
      const stamp = new Date().toISOString();
      const org: Organization = { id: newId('org'), name: 'Sync', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
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

    const all = async (orgId: string) => (await store.reviews.list({ orgId, limit: 10_000, offset: 0 })).items;

    it('Trustpilot: pages on the first sync, one request when idle, new reviews, edits, removal and return', async () => {
      const org = await newOrg();
      fake.trustpilot = trustpilotReviews(250, Date.parse('2026-11-20T12:00:00Z'), `tp-${org.id}`);
      const source = await newSource(org, 'TRUSTPILOT', 'bu-1', { apiKey: fake.keys.trustpilot });

      const first = await syncSource(deps, source.id);
      expect(first.summary).toEqual({ id: source.id, state: 'active', fetched: 250, created: 250, updated: 0, removed: 0, rejected: [], requests: 3 });
      expect(await store.reviews.count(org.id)).toBe(250);
      const one = (await all(org.id)).find((r) => r.externalId === `tp-${org.id}-1`)!;
      expect(one).toMatchObject({ platform: 'TRUSTPILOT', content: 'Review number 1\n\nThe product broke after two weeks and nobody replied to my emails.', rating: 2, url: `https://www.trustpilot.com/reviews/tp-${org.id}-1` });
      // Enriched as an import is.
      expect(one.sentimentLabel).toBe('NEGATIVE');
      expect(one.language).toBe('en');

      const idle = await syncSource(deps, source.id);
      expect(idle.summary).toMatchObject({ fetched: 100, created: 0, updated: 0, requests: 1 });

      fake.trustpilot.unshift({ id: `tp-${org.id}-new`, stars: 5, title: 'Brand new', text: 'Arrived today, lovely.', createdAt: '2026-11-21T08:00:00Z', consumer: { displayName: 'Newcomer' } });
      const fresh = await syncSource(deps, source.id);
      expect(fresh.summary).toMatchObject({ created: 1, updated: 0, requests: 1 });

      // An edit is seen by the full pass (Trustpilot's cursor is createdAt).
      const edited = fake.trustpilot.find((r) => r.id === `tp-${org.id}-10`)!;
      edited.text = 'Changed my mind: awful, never again.';
      edited.title = '';
      // Two reviews the platform no longer lists.
      fake.trustpilot = fake.trustpilot.filter((r) => r.id !== `tp-${org.id}-20` && r.id !== `tp-${org.id}-21`);
      const before = (await all(org.id)).find((r) => r.externalId === `tp-${org.id}-10`)!;
      const full = await syncSource(deps, source.id, { full: true });
      expect(full.summary).toMatchObject({ fetched: 249, created: 0, updated: 1, removed: 2, requests: 3 });
      const after = (await all(org.id)).find((r) => r.externalId === `tp-${org.id}-10`)!;
      expect(after).toMatchObject({ id: before.id, createdAt: before.createdAt, content: 'Changed my mind: awful, never again.', sentimentLabel: 'NEGATIVE' });
      expect(await store.reviews.count(org.id)).toBe(249);
      expect((await store.reviews.stats({ orgId: org.id, now: new Date() })).totalReviews).toBe(249);
      const removed = await store.reviews.listRemoved(org.id);
      expect(removed.map((r) => r.externalId).sort()).toEqual([`tp-${org.id}-20`, `tp-${org.id}-21`]);

      // Listed again: back as it was.
      fake.trustpilot.push(...trustpilotReviews(22, Date.parse('2026-11-20T12:00:00Z'), `tp-${org.id}`).slice(20));
      const back = await syncSource(deps, source.id, { full: true });
      expect(back.summary.removed).toBe(0);
      expect(await store.reviews.count(org.id)).toBe(251);
      const returned = (await all(org.id)).find((r) => r.externalId === `tp-${org.id}-20`)!;
      expect(returned.id).toBe(removed.find((r) => r.externalId === `tp-${org.id}-20`)!.id);
      expect(await store.reviews.listRemoved(org.id)).toEqual([]);
    }, 120_000);

    it('a review imported from a file and then synced is one review', async () => {
      const org = await newOrg();
      const file = JSON.stringify({ platform: 'TRUSTPILOT', externalId: `tp-file-${org.id}`, authorName: 'From a file', rating: 3, content: 'Old export text', date: '2026-01-01T00:00:00Z' });
      const imported = await importReviews(store, org, Readable.from([Buffer.from(`${file}\n`)]), 'ndjson', logger, null);
      expect(imported.imported).toBe(1);
      const id = (await all(org.id))[0]!.id;
      fake.trustpilot = [{ id: `tp-file-${org.id}`, stars: 4, title: '', text: 'Text from the API', createdAt: '2026-01-01T00:00:00Z', consumer: { displayName: 'From the API' } }];
      const source = await newSource(org, 'TRUSTPILOT', 'bu-2', { apiKey: fake.keys.trustpilot });
      const synced = await syncSource(deps, source.id);
      expect(synced.summary).toMatchObject({ created: 0, updated: 1 });
      const reviews = await all(org.id);
      expect(reviews).toHaveLength(1);
      expect(reviews[0]).toMatchObject({ id, content: 'Text from the API', rating: 4, authorName: 'From the API' });
    });

    it('honours 429 Retry-After, then goes on; a partial full pass removes nothing', async () => {
      const org = await newOrg();
      fake.trustpilot = trustpilotReviews(150, Date.parse('2026-10-20T12:00:00Z'), `tp-q-${org.id}`);
      const source = await newSource(org, 'TRUSTPILOT', 'bu-3', { apiKey: fake.keys.trustpilot });
      waits.length = 0;
      fake.force('trustpilot', { status: 429, headers: { 'retry-after': '7' }, body: { message: 'Too Many Requests' } });
      const first = await syncSource(deps, source.id);
      expect(waits).toEqual([7000]);
      expect(first.summary).toMatchObject({ created: 150, requests: 3 });
      // A full pass failing on its second page: nothing is removed, the failure is counted.
      fake.trustpilot = fake.trustpilot.slice(0, 120);
      const before = fake.count('trustpilot');
      fake.force('trustpilot', { status: 200, body: { reviews: fake.trustpilot.slice(0, 100), links: [{ rel: 'next-page', href: 'x' }] } }, { status: 503, body: { message: 'down' } });
      const partial = await syncSource(deps, source.id, { full: true });
      expect(fake.count('trustpilot') - before).toBe(2);
      expect(partial.summary).toMatchObject({ removed: 0, state: 'active' });
      expect(partial.error).toMatch(/Trustpilot is failing \(503\)/);
      expect(await store.reviews.count(org.id)).toBe(150);
      expect(await store.sources.get(source.id)).toMatchObject({ failures: 1, state: 'active' });
    });

    it('an empty page that names a next one is not the end (Google, Facebook): the full pass reads on and removes nothing; endless empty pages fail it as incomplete', async () => {
      const org = await newOrg();
      const at = (i: number) => new Date(Date.parse('2026-11-10T12:00:00Z') - i * 3600_000).toISOString();
      fake.google = Array.from({ length: 60 }, (_, i) => ({ reviewId: `g-e-${org.id}-${i}`, reviewer: { displayName: `Guest ${i}` }, starRating: 'FOUR', comment: `Visit number ${i} was good.`, createTime: at(i), updateTime: at(i) }));
      fake.facebook = Array.from({ length: 30 }, (_, i) => ({ created_time: at(i).replace(/\.\d{3}Z$/, '+0000'), rating: 5, review_text: `Page visit ${i} was lovely.`, reviewer: { name: `Fan ${i}` }, open_graph_story: { id: `fb-e-${org.id}-${i}` } }));
      const google = await newSource(org, 'GOOGLE', 'accounts/1/locations/2', { refreshToken: fake.keys.googleRefresh });
      const facebook = await newSource(org, 'FACEBOOK', '1049581', { pageAccessToken: fake.keys.facebook });
      for (const s of [google, facebook]) expect((await syncSource(deps, s.id)).summary.removed).toBe(0);
      expect(await store.reviews.count(org.id)).toBe(90);

      // First page empty, a next token all the same (the real reviews follow): read on, all seen, nothing removed.
      fake.force('google', { status: 200, body: { reviews: [], nextPageToken: '0' } });
      const g = await syncSource(deps, google.id, { full: true });
      expect(g.error).toBeNull();
      expect(g.summary).toMatchObject({ fetched: 60, removed: 0, requests: 3 + 1 });
      fake.force('facebook', { status: 200, body: { data: [], paging: { cursors: { before: 'MA==', after: Buffer.from('0').toString('base64') }, next: 'https://graph.facebook.com/v21.0/1049581/ratings?after=MA==' } } });
      const f = await syncSource(deps, facebook.id, { full: true });
      expect([f.error, f.summary.fetched, f.summary.removed]).toEqual([null, 30, 0]);
      expect(await store.reviews.count(org.id)).toBe(90);

      // Empty pages without end: the pass gives up as incomplete, removes nothing, and the failure is counted.
      const lastFull = (await store.sources.get(google.id))!.lastFullAt;
      fake.force('google', ...Array.from({ length: 5 }, (_, i) => ({ status: 200, body: { reviews: [], nextPageToken: `empty-${i}` } })));
      const endless = await syncSource(deps, google.id, { full: true });
      expect(endless.summary).toMatchObject({ fetched: 0, removed: 0 });
      expect(endless.error).toMatch(/Google answered 5 empty pages in a row that still pointed to a next page: the pass is incomplete/);
      expect(await store.sources.get(google.id)).toMatchObject({ failures: 1, lastFullAt: lastFull });
      // A platform pointing back to a page already given: incomplete too.
      fake.force('facebook', ...Array.from({ length: 2 }, () => ({ status: 200, body: { data: [fake.facebook[0]], paging: { cursors: { after: 'c2FtZQ==' }, next: 'https://graph.facebook.com/v21.0/x' } } })));
      const circle = await syncSource(deps, facebook.id, { full: true });
      expect([circle.summary.removed, circle.error]).toEqual([0, expect.stringMatching(/pointed back to a page it had already given/)]);
      expect(await store.reviews.count(org.id)).toBe(90);
    });

    it('after 3 failed syncs in a row a source is failing with an actionable lastError; a success clears it', async () => {
      const org = await newOrg();
      fake.g2 = g2Responses;
      const source = await newSource(org, 'G2', 'product-1', { apiToken: fake.keys.g2 });
      for (let i = 0; i < 3; i++) fake.force('g2', { status: 500, body: { errors: [{ status: '500' }] } });
      for (let i = 0; i < 3; i++) await syncSource(deps, source.id);
      const failing = await store.sources.get(source.id);
      expect(failing).toMatchObject({ state: 'failing', failures: 3, lastError: '3 syncs in a row failed; the last: G2 is failing (500); it will be tried again with back-off' });
      const ok = await syncSource(deps, source.id);
      expect(ok.summary).toMatchObject({ state: 'active', created: 2 });
      expect(await store.sources.get(source.id)).toMatchObject({ state: 'active', failures: 0, lastError: null });
      // G2: a refused token → needs_reauth, and no more calls.
      const g2Bad = await newSource(org, 'G2', 'product-2', { apiToken: 'wrong' });
      const refused = await syncSource(deps, g2Bad.id);
      expect(refused.summary.state).toBe('needs_reauth');
      const calls = fake.count('g2');
      const again = await syncSource(deps, g2Bad.id);
      expect(again.summary).toMatchObject({ state: 'needs_reauth', requests: 0 });
      expect(fake.count('g2')).toBe(calls);
    });

    it('Google: refresh token to access token, paging, an access token expiring mid-sync, invalid_grant → needs_reauth', async () => {
      const org = await newOrg();
      fake.google = googleReviews;
      fake.googlePageSize = 2;
      const source = await newSource(org, 'GOOGLE', 'accounts/1/locations/2', { refreshToken: fake.keys.googleRefresh });
      const tokenCalls = fake.count('google-token');
      // The second page finds the access token expired: one refresh, one retry.
      fake.force('google', { status: 200, body: { reviews: [...googleReviews].sort((a, b) => (b.updateTime ?? b.createTime).localeCompare(a.updateTime ?? a.createTime)).slice(0, 2), nextPageToken: '2' } });
      const originalForce = fake.forced.google!;
      expect(originalForce).toHaveLength(1);
      const first = syncSource(deps, source.id);
      const summary = (await first).summary;
      expect(summary).toMatchObject({ created: 3, state: 'active' });
      fake.googlePageSize = 50;
      expect(fake.count('google-token') - tokenCalls).toBe(1);
      fake.expireGoogleTokens();
      fake.google = [...googleReviews, { reviewId: 'g-new', reviewer: { displayName: 'Late' }, starRating: 'FOUR', comment: 'Nice', createTime: '2026-11-22T00:00:00Z', updateTime: '2026-11-22T00:00:00Z' }];
      const second = await syncSource(deps, source.id);
      // A fresh token per sync; the cursor is updateTime: only the new one.
      expect(second.summary).toMatchObject({ created: 1, requests: 2 });
      fake.expireGoogleTokens();
      const mid = fake.count('google-token');
      fake.force('google', { status: 401, body: { error: { code: 401 } } });
      const expired = await syncSource(deps, source.id);
      expect(expired.summary).toMatchObject({ state: 'active', requests: 4 });
      expect(fake.count('google-token') - mid).toBe(2);
      const reviews = await all(org.id);
      expect(reviews.find((r) => r.externalId === 'g-translated')).toMatchObject({ content: 'Café excelente y personal muy amable', language: 'es', rating: 5 });
      expect(reviews.find((r) => r.externalId === 'g-anonymous')).toMatchObject({ authorName: 'A Google user', rating: null, content: '' });

      const revoked = await newSource(org, 'GOOGLE', 'accounts/1/locations/3', { refreshToken: 'revoked-refresh-token' });
      const refused = await syncSource(deps, revoked.id);
      expect(refused.summary).toMatchObject({ state: 'needs_reauth', requests: 1 });
      expect((await store.sources.get(revoked.id))!.lastError).toMatch(/invalid_grant.*reconnect/);
      const before = fake.requests.length;
      await syncSource(deps, revoked.id);
      expect(fake.requests.length).toBe(before);
      // Reviews already collected stay.
      expect(await store.reviews.count(org.id)).toBe(4);
    });

    it('Yelp: 3 excerpts, local times across a DST change, never a removal', async () => {
      const org = await newOrg();
      fake.yelp = yelpReviews;
      const source = await newSource(org, 'YELP', 'acme-tacos-san-francisco', { apiKey: fake.keys.yelp });
      const first = await syncSource(deps, source.id);
      expect(first.summary).toMatchObject({ created: 3, requests: 1 });
      const dates = Object.fromEntries((await all(org.id)).map((r) => [r.externalId, r.date]));
      expect(dates).toEqual({ 'y-1': '2026-03-08T09:30:00.000Z', 'y-2': '2026-03-08T10:30:00.000Z', 'y-3': '2026-11-01T08:30:00.000Z' });
      fake.yelp = [];
      const full = await syncSource(deps, source.id, { full: true });
      expect(full.summary.removed).toBe(0);
      expect(await store.reviews.count(org.id)).toBe(3);
    });

    it('Facebook: cursor paging, +0000 dates, no stars from recommendations, code 190 → needs_reauth', async () => {
      const org = await newOrg();
      fake.facebook = facebookRatings;
      fake.facebookLimit = 2;
      const source = await newSource(org, 'FACEBOOK', '1234567890', { pageAccessToken: fake.keys.facebook });
      const first = await syncSource(deps, source.id);
      fake.facebookLimit = 100;
      expect(first.summary).toMatchObject({ created: 3, requests: 2 });
      const reviews = await all(org.id);
      expect(reviews.find((r) => r.externalId === 'fb-story-1')).toMatchObject({ rating: null, date: '2019-03-01T17:05:12.000Z', authorName: 'Chris Lee' });
      expect(reviews.find((r) => r.externalId === 'fb-story-2')).toMatchObject({ rating: 4 });
      const bad = await newSource(org, 'FACEBOOK', '999', { pageAccessToken: 'expired-token' });
      const refused = await syncSource(deps, bad.id);
      expect(refused.summary).toMatchObject({ state: 'needs_reauth', requests: 1 });
      expect((await store.sources.get(bad.id))!.lastError).toMatch(/code 190/);
    });

    it('an account id stored before ids were checked (`..`) fails its sync without a single call', async () => {
      const org = await newOrg();
      const before = fake.requests.length;
      for (const [platform, account, credentials] of [
        ['TRUSTPILOT', '..', { apiKey: fake.keys.trustpilot }],
        ['GOOGLE', 'accounts/1/locations/..', { refreshToken: fake.keys.googleRefresh }],
        ['FACEBOOK', '%2e%2e', { pageAccessToken: fake.keys.facebook }],
      ] as const) {
        const source = await newSource(org, platform, account, credentials);
        const outcome = await syncSource(deps, source.id);
        expect(outcome.summary, platform).toMatchObject({ fetched: 0, requests: 0 });
        expect(outcome.error, platform).toMatch(/account id .* connect it again with the right id/);
      }
      expect(fake.requests.length).toBe(before);
    });
  });
}
