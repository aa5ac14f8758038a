/**
 * Events from a source sync (CONTRACT §12), on both stores: a sync against the
 * local HTTPS fake of Trustpilot writes through the store's upsert and remove,
 * the one door, so its changes reach a real HTTPS receiver (verified with
 * standardwebhooks) like an import's: created on the first sync, nothing for
 * an idle or identical pass, updated for an edit, removed for a review the
 * platform no longer lists; `source.state_changed` from the sync's state
 * transitions and a reconnect, through the same outbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { Store } from '../store/types.ts';
import { HttpClient } from '../sources/http.ts';
import { syncSource, type SyncDeps } from '../sources/sync.ts';
import { trustpilotReviews } from '../sources/testing/generate.ts';
import { PlatformFake } from '../sources/testing/platform-fake.ts';
import { storeSubjects } from '../sources/testing/subjects.ts';
import { createDeliveryClient, type DeliveryClient } from './deliver.ts';
import { Dispatcher, sealSecrets } from './dispatcher.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret } from './secrets.ts';
import { flatHeaders, startReceiver, testCert, type Receiver } from './test-receiver.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 3));

for (const subject of storeSubjects('webhook-sync')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`webhook events from a source sync: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fake: PlatformFake;
    let http: HttpClient;
    let receiver: Receiver;
    let client: DeliveryClient;
    let dispatcher: Dispatcher;
    let deps: SyncDeps;

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      fake = await PlatformFake.start();
      http = new HttpClient({ extraCa: [fake.ca] });
      const cert = await testCert();
      receiver = await startReceiver(cert);
      client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
      dispatcher = new Dispatcher({ store, box, client, logger, pollMs: 50 });
      dispatcher.start();
      deps = { store, box, http, urls: fake.urls(), googleOAuth: null, logger, pool: null, sleep: async () => undefined };
    }, 60_000);
    afterAll(async () => {
      await dispatcher.close();
      client.close();
      http.close();
      await receiver.close();
      await fake.close();
      await cleanup();
    });

    it('sends created, updated and removed for what a sync changed, and nothing for what it did not', async () => {
      const stamp = new Date().toISOString();
      const orgId = newId('org');
      await store.orgs.create({ id: orgId, name: 'Synced', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      const secret = generateSecret();
      const endpointId = newId('wh');
      await store.webhooks.create({
        id: endpointId, orgId, url: receiver.url(), events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret, createdAt: new Date(), expiresAt: null }]),
      });
      const sourceId = newId('src');
      await store.sources.create({
        id: sourceId, orgId, platform: 'TRUSTPILOT', account: 'bu-hooks', name: 'tp', state: 'active', everyMinutes: 60, credentials: box.sealJson({ apiKey: fake.keys.trustpilot }, sourceId),
        cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
      });
      const wh = new Webhook(secret);
      const events = () => receiver.received.map((r) => wh.verify(r.body, flatHeaders(r.headers)) as { type: string; data: { content: string } });
      const until = async (n: number) => {
        const end = Date.now() + 30_000;
        while (receiver.received.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        expect(receiver.received.length).toBe(n);
      };

      fake.trustpilot = trustpilotReviews(5, Date.parse('2026-11-20T12:00:00Z'), `tp-${orgId}`);
      expect((await syncSource(deps, sourceId)).summary).toMatchObject({ created: 5 });
      await until(5);
      expect(events().every((e) => e.type === 'review.created')).toBe(true);

      // A full pass over unchanged data, with one edit and one review gone.
      fake.trustpilot[1]!.text = 'Changed my mind.';
      fake.trustpilot[1]!.title = '';
      fake.trustpilot = fake.trustpilot.filter((_r, i) => i !== 3);
      expect((await syncSource(deps, sourceId, { full: true })).summary).toMatchObject({ removed: 1 });
      await until(7);
      const later = events().slice(5).map((e) => e.type).sort();
      expect(later).toEqual(['review.removed', 'review.updated']);
      expect(events().find((e) => e.type === 'review.updated')!.data.content).toBe('Changed my mind.');
      // Nothing more arrives: a pass over what is stored changes nothing shown.
      await syncSource(deps, sourceId, { full: true });
      await dispatcher.pass();
      expect((await store.webhooks.unfanned(100)).filter((m) => m.orgId === orgId)).toEqual([]);
      expect(receiver.received).toHaveLength(7);
    });

    it('sends source.state_changed when a source needs reconnecting, is active again, and is failing; nothing while it stays as it was', async () => {
      // The suite's dispatcher and receiver (a second dispatcher on the same store without Redis would send everything twice).
      const start = receiver.received.length;
      const own = { url: () => receiver.url(), get received() {
        return receiver.received.slice(start);
      } };
      try {
        const stamp = new Date().toISOString();
        const orgId = newId('org');
        await store.orgs.create({ id: orgId, name: 'States', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
        const secret = generateSecret();
        const endpointId = newId('wh');
        await store.webhooks.create({
          id: endpointId, orgId, url: own.url(), events: ['source.state_changed'], description: '', state: 'enabled', disabledReason: null,
          createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret, createdAt: new Date(), expiresAt: null }]),
        });
        const sourceId = newId('src');
        await store.sources.create({
          id: sourceId, orgId, platform: 'TRUSTPILOT', account: 'bu-states', name: 'tp states', state: 'active', everyMinutes: 60, credentials: box.sealJson({ apiKey: 'a-refused-key' }, sourceId),
          cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
        });
        const wh = new Webhook(secret);
        type StateEvent = { type: string; data: Record<string, unknown> & { state: string } };
        const events = () => own.received.map((r) => wh.verify(r.body, flatHeaders(r.headers)) as StateEvent);
        const until = async (n: number) => {
          const end = Date.now() + 30_000;
          while (own.received.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
          expect(own.received.length).toBe(n);
        };
        fake.trustpilotUnits.set('bu-states', trustpilotReviews(3, Date.parse('2026-11-20T12:00:00Z'), `tp-states-${orgId}`));

        // The platform refuses the key: needs_reauth.
        expect((await syncSource(deps, sourceId)).summary.state).toBe('needs_reauth');
        await until(1);
        expect(events()[0]).toMatchObject({ type: 'source.state_changed', data: { id: sourceId, platform: 'trustpilot', account: 'bu-states', state: 'needs_reauth', reviewCount: 0 } });
        // Exactly the fields of `sources list`: never the credentials or the cursor.
        expect(Object.keys(events()[0]!.data).sort()).toEqual(['account', 'every', 'heldRemovals', 'id', 'lastError', 'lastSuccessAt', 'lastSyncAt', 'name', 'nextSyncAt', 'platform', 'reviewCount', 'state']);

        // Reconnected (as `sources reconnect` writes it): active again; a good sync keeps it active and says nothing.
        await store.sources.update(sourceId, { credentials: box.sealJson({ apiKey: fake.keys.trustpilot }, sourceId), state: 'active', failures: 0, lastError: null, nextSyncAt: new Date().toISOString() });
        await until(2);
        expect(events()[1]).toMatchObject({ type: 'source.state_changed', data: { id: sourceId, state: 'active', lastError: null } });
        expect((await syncSource(deps, sourceId)).summary).toMatchObject({ state: 'active', created: 3 });

        // The platform unreachable: two failed syncs stay active, the third is failing.
        const down = { ...deps, urls: { ...deps.urls, trustpilot: 'https://127.0.0.1:1' } };
        for (let i = 0; i < 3; i++) await syncSource(down, sourceId);
        await until(3);
        expect(events()[2]).toMatchObject({ type: 'source.state_changed', data: { id: sourceId, state: 'failing', reviewCount: 3 } });
        expect(String(events()[2]!.data.lastError)).toMatch(/3 syncs in a row failed/);
        await dispatcher.pass();
        expect((await store.webhooks.unfanned(100)).filter((m) => m.orgId === orgId)).toEqual([]);
        expect(own.received).toHaveLength(3);
      } finally {
        fake.trustpilotUnits.delete('bu-states');
      }
    });
  });
}
