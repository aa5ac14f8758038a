/**
 * Replies collected by syncs (CONTRACT §15), against the local HTTPS fakes of
 * Google and Trustpilot, on both stores: Google `reviewReply` ({comment,
 * updateTime}) and Trustpilot `companyReply` ({text, createdAt, updatedAt})
 * become the review's reply; a reply written, edited or deleted on the
 * platform is one `review.updated` each; an identical pass writes nothing and
 * sends nothing; a reply that is not the documented shape fails the sync and
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import { MongoStore } from '../store/mongo/store.ts';
import type { Organization, Review, Source, SourcePlatform, Store } from '../store/types.ts';
import { HttpClient } from './http.ts';
import { syncSource, type SyncDeps } from './sync.ts';
import { googleReviews, REPLY_TEXTS, trustpilotReviews } from './testing/generate.ts';
import { PlatformFake } from './testing/platform-fake.ts';
import { storeSubjects } from './testing/subjects.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 7));

for (const subject of storeSubjects('sources-replies')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`replies collected by syncs: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fake: PlatformFake;
    let http: HttpClient;
    let deps: SyncDeps;

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      fake = await PlatformFake.start();
      http = new HttpClient({ extraCa: [fake.ca] });
      deps = { store, box, http, urls: fake.urls(), googleOAuth: { clientId: 'client-id', clientSecret: 'client-secret' }, logger, pool: null, sleep: async () => undefined };
    }, 60_000);
    afterAll(async () => {
      http.close();
      await fake.close();
      await cleanup();
    });

    async function newOrg(): Promise<Organization> {
      const stamp = new Date().toISOString();
      const org: Organization = { id: newId('org'), name: 'Replies', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
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

    async function endpoint(org: Organization): Promise<string> {
      const id = newId('wh');
      const stamp = new Date().toISOString();
      await store.webhooks.create({
        id, orgId: org.id, url: 'https://receiver.invalid/hook', events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: '[]',
      });
      return id;
    }

    /** The events recorded for the organization: each type with the review's reply as sent. */
    async function events(org: Organization, endpointId: string): Promise<{ type: string; reply: unknown }[]> {
      if (store instanceof MongoStore) while ((await store.relayOutbox(1000)) > 0);
      const ids = [
        ...(await store.webhooks.unfanned(100_000)).filter((m) => m.orgId === org.id).map((m) => m.id),
        ...(await store.webhooks.deliveries(endpointId, null, 100_000)).map((d) => d.messageId),
      ];
      const out: { type: string; reply: unknown }[] = [];
      for (const id of new Set(ids)) {
        const m = (await store.webhooks.getMessage(id))!;
        out.push({ type: m.type, reply: (JSON.parse(m.body) as { data: { reply: unknown } }).data.reply });
      }
      return out;
    }

    const replies = async (org: Organization): Promise<Record<string, Review['reply']>> =>
      Object.fromEntries((await store.reviews.list({ orgId: org.id, limit: 1000, offset: 0 })).items.map((r) => [r.externalId, r.reply]));

    it('Trustpilot companyReply: collected; written, edited and deleted replies are one review.updated each; an identical pass sends nothing', async () => {
      const org = await newOrg();
      const hook = await endpoint(org);
      const start = Date.parse('2026-11-20T12:00:00Z');
      const listed = trustpilotReviews(30, start, `tp-r-${org.id}`, { replies: true });
      fake.trustpilotUnits.set(`bu-r-${org.id}`, listed);
      const source = await newSource(org, 'TRUSTPILOT', `bu-r-${org.id}`, { apiKey: fake.keys.trustpilot });
      expect((await syncSource(deps, source.id)).summary).toMatchObject({ created: 30, updated: 0 });
      const first = await replies(org);
      expect(first[`tp-r-${org.id}-0`]).toBeNull();
      expect(first[`tp-r-${org.id}-1`]).toEqual({ text: REPLY_TEXTS[1], date: new Date(start - 3600_000 + 2 * 3600_000).toISOString() });
      expect(Object.values(first).filter((r) => r !== null)).toHaveLength(10);

      const same = await syncSource(deps, source.id, { full: true });
      expect(same.summary).toMatchObject({ fetched: 30, created: 0, updated: 0, removed: 0 });
      expect((await events(org, hook)).map((e) => e.type).filter((t) => t !== 'review.created')).toEqual([]);

      // On the platform: a reply written (2), one edited (4: updatedAt is its date), one deleted (7).
      listed[2]!.companyReply = { text: 'Thanks, <b>see you</b> soon & again.', createdAt: '2026-11-20T11:00:00Z' };
      listed[4]!.companyReply = { text: 'Edited: we have refunded you.', createdAt: listed[4]!.companyReply!.createdAt, updatedAt: '2026-11-21T08:00:00+01:00' };
      delete listed[7]!.companyReply;
      const changed = await syncSource(deps, source.id, { full: true });
      expect(changed.summary).toMatchObject({ created: 0, updated: 3, removed: 0 });
      const updates = (await events(org, hook)).filter((e) => e.type === 'review.updated').map((e) => e.reply);
      expect(updates).toHaveLength(3);
      expect(updates).toEqual(expect.arrayContaining([
        { text: 'Thanks, <b>see you</b> soon & again.', date: '2026-11-20T11:00:00.000Z' },
        { text: 'Edited: we have refunded you.', date: '2026-11-21T07:00:00.000Z' },
        null,
      ]));
      const after = await replies(org);
      expect(after[`tp-r-${org.id}-7`]).toBeNull();
      expect(after[`tp-r-${org.id}-4`]).toEqual({ text: 'Edited: we have refunded you.', date: '2026-11-21T07:00:00.000Z' });
      fake.trustpilotUnits.delete(`bu-r-${org.id}`);
    }, 120_000);

    it('Google reviewReply: collected with its updateTime; an edit is one review.updated', async () => {
      const org = await newOrg();
      const hook = await endpoint(org);
      const start = Date.parse('2026-11-19T12:00:00Z');
      fake.google = googleReviews(12, start, `g-r-${org.id}`, { replies: true });
      const source = await newSource(org, 'GOOGLE', 'accounts/1/locations/2', { refreshToken: fake.keys.googleRefresh });
      expect((await syncSource(deps, source.id)).summary).toMatchObject({ created: 12, updated: 0 });
      const first = await replies(org);
      expect(first[`g-r-${org.id}-4`]).toEqual({ text: REPLY_TEXTS[0], date: new Date(start - 4 * 3600_000 + 2 * 3600_000).toISOString() });
      expect(first[`g-r-${org.id}-5`]).toBeNull();
      expect(Object.values(first).filter((r) => r !== null)).toHaveLength(4);

      fake.google[4]!.reviewReply = { comment: 'Updated answer.', updateTime: '2026-11-21T10:00:00.123456Z' };
      expect((await syncSource(deps, source.id, { full: true })).summary).toMatchObject({ created: 0, updated: 1 });
      expect((await events(org, hook)).filter((e) => e.type === 'review.updated')).toEqual([{ type: 'review.updated', reply: { text: 'Updated answer.', date: '2026-11-21T10:00:00.123Z' } }]);
      fake.google = [];
    }, 120_000);

    it('a reply that is not the documented shape fails the sync and changes nothing, on Google and Trustpilot', async () => {
      const org = await newOrg();
      const hook = await endpoint(org);
      const listed = trustpilotReviews(6, Date.parse('2026-11-18T12:00:00Z'), `tp-m-${org.id}`, { replies: true });
      fake.trustpilotUnits.set(`bu-m-${org.id}`, listed);
      fake.google = googleReviews(6, Date.parse('2026-11-18T12:00:00Z'), `g-m-${org.id}`, { replies: true });
      const tp = await newSource(org, 'TRUSTPILOT', `bu-m-${org.id}`, { apiKey: fake.keys.trustpilot });
      const g = await newSource(org, 'GOOGLE', 'accounts/1/locations/2', { refreshToken: fake.keys.googleRefresh });
      for (const s of [tp, g]) expect((await syncSource(deps, s.id)).error).toBeNull();
      const before = (await store.reviews.list({ orgId: org.id, limit: 100, offset: 0 })).items;
      // Review events only: three failed syncs in a row also announce the source as failing.
      const reviewEvents = async () => (await events(org, hook)).filter((e) => e.type.startsWith('review.'));
      const eventsBefore = (await reviewEvents()).length;

      const good = { tp: listed[1]!.companyReply!, g: fake.google[1]!.reviewReply! };
      const bad: [Source, () => void][] = [
        [tp, () => void (listed[1]!.companyReply = 'Thanks!' as never)],
        [tp, () => void (listed[1]!.companyReply = { message: 'Thanks!', createdAt: '2026-11-18T12:00:00Z' } as never)],
        [tp, () => void (listed[1]!.companyReply = { text: 'Thanks!' } as never)],
        [tp, () => void (listed[1]!.companyReply = { text: 'Thanks!', updatedAt: 1763467200 } as never)],
        [g, () => void (fake.google[1]!.reviewReply = ['Thanks!'] as never)],
        [g, () => void (fake.google[1]!.reviewReply = { comment: 42, updateTime: '2026-11-18T12:00:00Z' } as never)],
        [g, () => void (fake.google[1]!.reviewReply = { comment: 'Thanks!' } as never)],
      ];
      for (const [source, spoil] of bad) {
        spoil();
        // Also a change the platform made elsewhere on the page: not used either.
        listed[0]!.text = fake.google[0]!.comment = `Changed ${Math.random()}`;
        const outcome = await syncSource(deps, source.id, { full: true });
        expect(outcome.error).toMatch(/answered something that is not its documented shape \(item 2's "(companyReply|reviewReply)" .+\): that answer was not used and nothing was removed/);
        listed[1]!.companyReply = good.tp;
        fake.google[1]!.reviewReply = good.g;
      }
      expect((await store.reviews.list({ orgId: org.id, limit: 100, offset: 0 })).items).toEqual(before);
      expect(await reviewEvents()).toHaveLength(eventsBefore);
      fake.trustpilotUnits.delete(`bu-m-${org.id}`);
      fake.google = [];
    }, 120_000);
  });
}
