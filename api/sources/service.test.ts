/**
 * SourcesService against the local HTTPS platform fake, on both stores
 * (issue 39): connecting and reconnecting prove the credentials with one call
 * to the platform before anything is stored, so a refused key is a 400 naming
 * the platform and changes nothing (no record, no state, no
 * `source.state_changed` in the outbox); a new source's first sync runs at
 * once (here the scheduler is never started: only that start can sync it);
 * and each sync's result is kept on the source (`lastResult`).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../errors.ts';
import { InProcessJobs } from '../jobs/in-process.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { Organization, Store } from '../store/types.ts';
import { sealSecrets } from '../webhooks/dispatcher.ts';
import { generateSecret } from '../webhooks/secrets.ts';
import { HttpClient } from './http.ts';
import { dueSources, SourcesService } from './service.ts';
import type { SyncSummary } from './sync.ts';
import { trustpilotReviews } from './testing/generate.ts';
import { PlatformFake } from './testing/platform-fake.ts';
import { storeSubjects } from './testing/subjects.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 5));
/** Bound of every wait for the background sync (a loaded machine). */
const WAIT = { timeout: 30_000, interval: 50 };

for (const subject of storeSubjects('sources-service')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`sources service: ${subject.name}`, () => {
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
      // Never started: no scheduler looks for due sources here, so a sync only runs when the service starts one.
      jobs = new InProcessJobs({ handler: SourcesService.handler(deps), logger, due: (now) => dueSources(store, now), tickMs: 3_600_000 });
      sources = new SourcesService(store, box, jobs, 60_000, { http, urls: fake.urls(), googleOAuth: deps.googleOAuth });
    }, 60_000);
    afterAll(async () => {
      await jobs.close();
      http.close();
      await fake.close();
      await cleanup();
    });

    /** An organization with a webhook endpoint, so that the store records its events in the outbox (nothing dispatches them here). */
    async function newOrg(): Promise<Organization> {
      const stamp = new Date().toISOString();
      const org: Organization = { id: newId('org'), name: 'Service', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
      await store.orgs.create(org);
      const endpointId = newId('wh');
      await store.webhooks.create({
        id: endpointId, orgId: org.id, url: 'https://127.0.0.1:9/hook', events: ['source.state_changed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
      });
      return org;
    }

    const stateEvents = async (orgId: string) =>
      (await store.webhooks.unfanned(1000)).filter((m) => m.orgId === orgId && m.type === 'source.state_changed').map((m) => (JSON.parse(m.body) as { data: { state: string } }).data.state);

    async function refused(promise: Promise<unknown>): Promise<ApiError> {
      const err = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      return err as ApiError;
    }

    it('refuses a wrong key on connect with a 400 naming the platform, after one call, and stores nothing', async () => {
      const org = await newOrg();
      const before = fake.count('trustpilot');
      const err = await refused(sources.add({ orgId: org.id, platform: 'trustpilot', account: `bu-wrong-${org.id}`, name: 'Main shop', credentials: { apiKey: 'a-wrong-trustpilot-key' } }));
      expect([err.status, err.code]).toEqual([400, 'credentials_refused']);
      expect(err.message).toBe('Trustpilot refused the API key (HTTP 401): check it and try again. Nothing was saved.');
      expect(err.message).not.toContain('a-wrong-trustpilot-key');
      expect(fake.count('trustpilot') - before).toBe(1);
      expect(await store.sources.listByOrg(org.id)).toEqual([]);
      expect(await stateEvents(org.id)).toEqual([]);
      // A platform that is failing is not a refusal: a 502, and nothing stored either.
      fake.force('trustpilot', { status: 503, body: { message: 'Service unavailable' } });
      const down = await refused(sources.add({ orgId: org.id, platform: 'trustpilot', account: `bu-wrong-${org.id}`, credentials: { apiKey: fake.keys.trustpilot } }));
      expect([down.status, down.code]).toEqual([502, 'platform_unavailable']);
      expect(down.message).toMatch(/^Trustpilot is failing \(HTTP 503\), so the API key could not be checked/);
      expect(await store.sources.listByOrg(org.id)).toEqual([]);
    });

    it('runs a new source\'s first sync at once and keeps its result on the source', async () => {
      const org = await newOrg();
      const account = `bu-first-${org.id}`;
      fake.trustpilotUnits.set(account, trustpilotReviews(7, Date.parse('2026-11-20T12:00:00Z'), `first-${org.id}`));
      const added = await sources.add({ orgId: org.id, platform: 'trustpilot', account, name: 'Main shop', credentials: { apiKey: fake.keys.trustpilot } });
      expect(added).toMatchObject({ state: 'active', lastSyncAt: null });
      // The scheduler never runs here: only the sync the service started can have stored the result.
      const synced = await vi.waitFor(async () => {
        const source = await store.sources.get(added.id);
        expect(source?.lastResult).toBeTruthy();
        return source!;
      }, WAIT);
      expect(synced.lastResult).toMatchObject({ outcome: 'succeeded', full: true, fetched: 7, created: 7, updated: 0, removed: 0, rejected: 0, error: null });
      expect(synced.lastSyncAt).not.toBeNull();
      expect((await sources.list(org.id))[0]).toMatchObject({ id: added.id, reviewCount: 7, lastResult: { outcome: 'succeeded', created: 7 } });

      // A failed sync keeps why, in words; a later good one replaces it.
      fake.force('trustpilot', { status: 500, body: { message: 'Internal error' } });
      expect(await sources.sync(added.id, false)).toMatchObject({ state: 'active', fetched: 0 });
      const failed = (await store.sources.get(added.id))!;
      expect(failed.lastResult).toMatchObject({ outcome: 'failed', full: false, created: 0, error: 'Trustpilot is failing (500); it will be tried again with back-off' });
      expect((await sources.sync(added.id, true)).removed).toBe(0);
      expect((await store.sources.get(added.id))!.lastResult).toMatchObject({ outcome: 'succeeded', full: true, fetched: 7, error: null });
      fake.trustpilotUnits.delete(account);
    });

    it('refuses a wrong key on reconnect and changes nothing (state, credentials, no event); a right one stores it and only then says active', async () => {
      const org = await newOrg();
      const account = `bu-again-${org.id}`;
      fake.trustpilotUnits.set(account, trustpilotReviews(2, Date.parse('2026-11-20T12:00:00Z'), `again-${org.id}`));
      const added = await sources.add({ orgId: org.id, platform: 'trustpilot', account, credentials: { apiKey: fake.keys.trustpilot } });
      await vi.waitFor(async () => expect((await store.sources.get(added.id))?.lastResult?.outcome).toBe('succeeded'), WAIT);
      // The platform stops accepting the key: the next sync makes the source need reconnecting.
      fake.force('trustpilot', { status: 401, body: { message: 'Unauthorized' } });
      expect(await sources.sync(added.id, false)).toMatchObject({ state: 'needs_reauth' });
      const waiting = (await store.sources.get(added.id))!;
      expect(waiting.lastResult).toMatchObject({ outcome: 'refused', error: expect.stringMatching(/Trustpilot refused the credentials \(401\)/) });
      expect(await stateEvents(org.id)).toEqual(['needs_reauth']);
      // The CLI, the dashboard and the events show one schedule: none while it waits for a person.
      expect((await sources.list(org.id))[0]!.nextSyncAt).toBeNull();

      const before = fake.count('trustpilot');
      const err = await refused(sources.reconnect(added.id, { apiKey: 'still-a-wrong-key' }));
      expect([err.status, err.code, err.message]).toEqual([400, 'credentials_refused', 'Trustpilot refused the API key (HTTP 401): check it and try again. Nothing was saved.']);
      expect(fake.count('trustpilot') - before).toBe(1);
      expect(await store.sources.get(added.id)).toEqual(waiting);
      expect(await stateEvents(org.id)).toEqual(['needs_reauth']);

      const reconnected = await sources.reconnect(added.id, { apiKey: fake.keys.trustpilot });
      expect(reconnected).toMatchObject({ id: added.id, state: 'active', lastError: null });
      expect(await stateEvents(org.id)).toEqual(['needs_reauth', 'active']);
      expect(box.openJson((await store.sources.get(added.id))!.credentials, added.id)).toEqual({ apiKey: fake.keys.trustpilot });
      // And its sync starts at once: the result is a success again.
      await vi.waitFor(async () => expect((await store.sources.get(added.id))?.lastResult?.outcome).toBe('succeeded'), WAIT);
      fake.trustpilotUnits.delete(account);
    });

    it('answers an account the platform does not know with a 400 naming it, and stores nothing', async () => {
      const org = await newOrg();
      fake.force('g2', { status: 404, body: { errors: [{ status: '404', title: 'Not Found' }] } });
      const err = await refused(sources.add({ orgId: org.id, platform: 'g2', account: 'no-such-product', credentials: { apiToken: fake.keys.g2 } }));
      expect([err.status, err.code]).toEqual([400, 'account_unknown']);
      expect(err.message).toBe('G2 does not know the product "no-such-product" (HTTP 404): check the account id. Nothing was saved.');
      expect(await store.sources.listByOrg(org.id)).toEqual([]);
      // Facebook's refusal is its error code 190 on a 400, Google's an invalid_grant: both read as a refused credential.
      const facebook = await refused(sources.add({ orgId: org.id, platform: 'facebook', account: '1234', credentials: { pageAccessToken: 'expired-token' } }));
      expect([facebook.status, facebook.code, facebook.message]).toEqual([400, 'credentials_refused', 'Facebook refused the Page access token (HTTP 400): check it and try again. Nothing was saved.']);
      const google = await refused(sources.add({ orgId: org.id, platform: 'google', account: 'accounts/1/locations/2', credentials: { refreshToken: 'revoked-refresh-token' } }));
      expect([google.status, google.code]).toEqual([400, 'credentials_refused']);
      expect(google.message).toMatch(/^Google refused the authorization \(HTTP 400\)/);
      expect(await store.sources.listByOrg(org.id)).toEqual([]);
    });
  });
}
