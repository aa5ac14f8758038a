/**
 * RepliesService (CONTRACT §15) on both stores, against the local HTTPS fakes
 * of Google and Trustpilot, on the in-process job door: states, the delay
 * (edit and cancel meanwhile), roles, retries (429 with Retry-After, 5xx
 * exhausted), an authorization refusal, idempotency after a lost answer and
 * after a crash, DIRECT replies, and the platforms without a reply API.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BullKeyedQueue } from '../jobs/keyed-bullmq.ts';
import type { KeyedQueue } from '../jobs/keyed-work.ts';
import { ApiError } from '../errors.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { googleReviews } from '../sources/fixtures.ts';
import { HttpClient } from '../sources/http.ts';
import { PlatformFake } from '../sources/testing/platform-fake.ts';
import { trustpilotReviews } from '../sources/testing/generate.ts';
import { storeSubjects } from '../sources/testing/subjects.ts';
import { trustpilotReplies } from '../sources/trustpilot.ts';
import { newId } from '../store/ids.ts';
import type { Organization, Review, Source, SourcePlatform, Store } from '../store/types.ts';
import { sealSecrets } from '../webhooks/dispatcher.ts';
import { generateSecret } from '../webhooks/secrets.ts';
import { ReplyActionLimiter } from './limits.ts';
import type { PublishedReply, ReviewReplies } from './port.ts';
import { OPERATOR_CALLER, RepliesService, type RepliesDeps, type ReplyCaller, type ReplyJob } from './service.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 11));

/** The port as the lead wires it to the reviews, in memory: what each review's `reply` now is. */
export class MemoryReviewReplies implements ReviewReplies {
  readonly replies = new Map<string, PublishedReply | null>();
  readonly calls: { orgId: string; reviewId: string; reply: PublishedReply | null }[] = [];
  async set(orgId: string, reviewId: string, reply: PublishedReply | null): Promise<void> {
    this.replies.set(`${orgId}/${reviewId}`, reply);
    this.calls.push({ orgId, reviewId, reply });
  }
  get(orgId: string, reviewId: string): PublishedReply | null | undefined {
    return this.replies.get(`${orgId}/${reviewId}`);
  }
}

const owner: ReplyCaller = { actor: { userId: 'usr_owner', email: 'owner@shop.test' }, role: 'owner' };
const admin: ReplyCaller = { actor: { userId: 'usr_admin', email: 'admin@shop.test' }, role: 'admin' };
const member: ReplyCaller = { actor: { userId: 'usr_member', email: 'member@shop.test' }, role: 'member' };

async function refused(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

for (const subject of storeSubjects('replies-service')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`replies: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let fake: PlatformFake;
    let http: HttpClient;
    const services: { service: RepliesService; queue: KeyedQueue<ReplyJob> }[] = [];

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      fake = await PlatformFake.start();
      http = new HttpClient({ extraCa: [fake.ca] });
    }, 60_000);
    afterAll(async () => {
      for (const s of services) await s.queue.close();
      http.close();
      await fake.close();
      await cleanup();
    });

    async function service(port = new MemoryReviewReplies(), options: Partial<RepliesDeps> = {}, start = true): Promise<{ service: RepliesService; port: MemoryReviewReplies }> {
      const queue = options.queue ?? new InProcessKeyedQueue<ReplyJob>(logger);
      const s = new RepliesService({
        store, box, http, urls: fake.urls(), googleOAuth: { clientId: 'client-id', clientSecret: 'client-secret' }, logger, queue, replies: port,
        pollMs: 50, retryBaseMs: 20, maxAttempts: 3, ...options,
      });
      // Only the newest service hears the store's upserts (the automatic-reply rule), with its own options.
      if (start) for (const earlier of services) earlier.service.stopListening();
      services.push({ service: s, queue });
      if (start) await s.start();
      return { service: s, port };
    }

    interface Shop {
      org: Organization;
      google: Source;
      trustpilot: Source;
      /** Review ids by external id (and `direct`, `yelp`, `file`). */
      reviews: Map<string, Review>;
    }

    async function newSource(org: Organization, platform: SourcePlatform, account: string, credentials: unknown, connectedAt = new Date()): Promise<Source> {
      const id = newId('src');
      const stamp = connectedAt.toISOString();
      const source: Source = {
        id, orgId: org.id, platform, account, name: `${platform} shop`, state: 'active', everyMinutes: 60, credentials: box.sealJson(credentials, id),
        cursor: null, lastSyncAt: null, lastSuccessAt: null, lastFullAt: null, nextSyncAt: stamp, lastError: null, failures: 0, createdAt: stamp, updatedAt: stamp,
      };
      await store.sources.create(source);
      return source;
    }

    /** An organization with a webhook endpoint (so its events are recorded), a Google and a Trustpilot source and their reviews. */
    async function shop(delayMinutes = 0): Promise<Shop> {
      const stamp = new Date().toISOString();
      const org: Organization = { id: newId('org'), name: 'Shop', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp };
      await store.orgs.create(org);
      const endpointId = newId('wh');
      await store.webhooks.create({
        id: endpointId, orgId: org.id, url: 'https://127.0.0.1:9/hook', events: ['reply.failed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
      });
      await store.replies.putSettings({ orgId: org.id, delayMinutes });
      const google = await newSource(org, 'GOOGLE', 'accounts/1/locations/2', { refreshToken: fake.keys.googleRefresh });
      const trustpilot = await newSource(org, 'TRUSTPILOT', 'bu-1', { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: fake.keys.trustpilotBusinessUser });
      const gIds = googleReviews.slice(0, 3).map((r) => `${org.id}-${r.reviewId}`);
      fake.google.push(...googleReviews.slice(0, 3).map((r, i) => ({ ...r, reviewId: gIds[i]! })));
      const tp = trustpilotReviews(3, Date.parse('2026-11-20T12:00:00Z'), `tp-${org.id}`);
      fake.trustpilot.push(...tp);
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 4, content: 'Nice', date: '2026-11-20T10:00:00.000Z' };
      await store.reviews.upsert(org.id, [
        ...gIds.map((externalId) => ({ ...base, platform: 'GOOGLE', externalId, authorName: 'Ana', sourceId: google.id })),
        ...tp.map((r) => ({ ...base, platform: 'TRUSTPILOT', externalId: r.id, authorName: 'Ben', sourceId: trustpilot.id })),
        { ...base, platform: 'DIRECT', externalId: 'direct-1', authorName: 'Cleo' },
        { ...base, platform: 'YELP', externalId: 'yelp-1', authorName: 'Dan' },
        { ...base, platform: 'GOOGLE', externalId: 'file-1', authorName: 'Eve' },
      ], new Date());
      const all = (await store.reviews.list({ orgId: org.id, limit: 100, offset: 0 })).items;
      const reviews = new Map(all.map((r) => [r.externalId, r]));
      reviews.set('direct', reviews.get('direct-1')!);
      reviews.set('yelp', reviews.get('yelp-1')!);
      reviews.set('file', reviews.get('file-1')!);
      reviews.set('g0', reviews.get(gIds[0]!)!);
      reviews.set('g1', reviews.get(gIds[1]!)!);
      reviews.set('g2', reviews.get(gIds[2]!)!);
      reviews.set('t0', reviews.get(tp[0]!.id)!);
      reviews.set('t1', reviews.get(tp[1]!.id)!);
      reviews.set('t2', reviews.get(tp[2]!.id)!);
      return { org, google, trustpilot, reviews };
    }

    const id = (s: Shop, name: string): string => s.reviews.get(name)!.id;
    const ext = (s: Shop, name: string): string => s.reviews.get(name)!.externalId;
    const calls = (platform: 'google-reply' | 'trustpilot-reply' | 'trustpilot-token', reviewExternalId?: string) =>
      fake.requests.filter((r) => r.platform === platform && (reviewExternalId === undefined || r.path.includes(encodeURIComponent(reviewExternalId)))).length;
    const failedEvents = async (orgId: string) =>
      (await store.webhooks.unfanned(1000)).filter((m) => m.orgId === orgId && m.type === 'reply.failed').map((m) => (JSON.parse(m.body) as { data: unknown }).data);

    it('publishes a Google reply at once: Google\'s updateTime is its date, the review shows it, audited', async () => {
      const s = await shop();
      const { service: replies, port } = await service();
      const scheduled = await replies.publish(owner, s.org.id, id(s, 'g0'), 'Thank you, Ana!', { now: true });
      expect(scheduled.state).toBe('scheduled');
      const done = await replies.settled(s.org.id, id(s, 'g0'));
      expect(done).toMatchObject({ state: 'published', text: 'Thank you, Ana!', error: null, attempts: 1, approvedBy: owner.actor });
      expect(fake.googleReplies.get(ext(s, 'g0'))?.text).toBe('Thank you, Ana!');
      expect(done.date).toBe(fake.googleReplies.get(ext(s, 'g0'))!.at);
      expect((await vi_poll(async () => port.get(s.org.id, id(s, 'g0')), (r) => r !== undefined))).toEqual({ text: 'Thank you, Ana!', date: done.date });
      // Audited right after the state is written: waited for, not read once.
      const audit = await vi_poll(() => store.people.audit.listByOrg(s.org.id, 10), (list) => list.some((a) => a.action === 'reply.published'));
      expect(audit.find((a) => a.action === 'reply.published')).toMatchObject({ target: { id: id(s, 'g0') }, details: { platform: 'Google', by: 'service' }, actor: { userId: 'usr_owner' } });
    });

    it('a chain: a reply goes through the review\'s own source, the Google location that collected it (CONTRACT §15)', async () => {
      const s = await shop();
      const { service: replies } = await service();
      // A second location of the same chain, with a review of its own.
      const south = await newSource(s.org, 'GOOGLE', 'accounts/1/locations/9', { refreshToken: fake.keys.googleRefresh });
      const externalId = `${s.org.id}-south-1`;
      fake.google.push({ ...googleReviews[0]!, reviewId: externalId });
      await store.reviews.upsert(s.org.id, [{ platform: 'GOOGLE', externalId, authorName: 'Sol', authorAvatar: null, rating: 5, content: 'Great branch', date: '2026-11-21T10:00:00.000Z', url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], sourceId: south.id }], new Date());
      const review = (await store.reviews.list({ orgId: s.org.id, sourceIds: [south.id], limit: 1, offset: 0 })).items[0]!;
      await replies.publish(owner, s.org.id, review.id, 'Thank you, Sol!', { now: true });
      expect((await replies.settled(s.org.id, review.id)).state).toBe('published');
      const puts = fake.requests.filter((r) => r.platform === 'google-reply' && r.path.includes(encodeURIComponent(externalId)));
      expect(puts.map((r) => r.path)).toEqual([`/v4/accounts/1/locations/9/reviews/${encodeURIComponent(externalId)}/reply`]);
    });

    it('waits the organization\'s delay, during which it can be edited or cancelled; a cancelled reply is never posted', async () => {
      const s = await shop(5);
      const { service: replies } = await service();
      const before = Date.now();
      const scheduled = await replies.publish(admin, s.org.id, id(s, 'g1'), 'First words');
      expect(scheduled.state).toBe('scheduled');
      expect(Date.parse(scheduled.scheduledAt!) - before).toBeGreaterThanOrEqual(5 * 60_000);
      await replies.edit(admin, s.org.id, id(s, 'g1'), 'Better words');
      expect((await replies.get(s.org.id, id(s, 'g1'))).text).toBe('Better words');
      // The job looks, finds it not yet due, and posts nothing.
      expect(await replies.run({ orgId: s.org.id, reviewId: id(s, 'g1') })).toMatchObject({ again: true });
      const cancelled = await replies.cancel(admin, s.org.id, id(s, 'g1'));
      expect(cancelled).toMatchObject({ state: 'draft', scheduledAt: null, text: 'Better words' });
      // Even once due, a cancelled reply is not taken.
      expect(await replies.run({ orgId: s.org.id, reviewId: id(s, 'g1') })).toBeUndefined();
      expect(calls('google-reply', ext(s, 'g1'))).toBe(0);
      // Approved again, at once this time: the edited text is what Google gets.
      await replies.publish(admin, s.org.id, id(s, 'g1'), undefined, { now: true });
      expect((await replies.settled(s.org.id, id(s, 'g1'))).state).toBe('published');
      expect(fake.googleReplies.get(ext(s, 'g1'))?.text).toBe('Better words');
      expect(await refused(replies.cancel(admin, s.org.id, id(s, 'g1')))).toMatchObject({ status: 409 });
      expect(await refused(replies.setDelay(owner, s.org.id, 61))).toMatchObject({ status: 400 });
      expect(await refused(replies.setDelay(member, s.org.id, 10))).toMatchObject({ status: 403 });
      expect(await replies.setDelay(owner, s.org.id, '0')).toBe(0);
    });

    it('roles: a Member writes a draft, cannot publish, approve, cancel or delete; an Owner or Admin approves it', async () => {
      const s = await shop(5);
      const { service: replies } = await service();
      const draft = await replies.draft(member, s.org.id, id(s, 'g2'), 'Thanks from the team');
      expect(draft).toMatchObject({ state: 'draft', author: member.actor, approvedBy: null });
      expect(await refused(replies.publish(member, s.org.id, id(s, 'g2'), 'x', { now: true }))).toMatchObject({ status: 403, message: expect.stringMatching(/Owner or Admin/) });
      expect(await refused(replies.approve(member, s.org.id, id(s, 'g2'), 'Thanks from the team'))).toMatchObject({ status: 403 });
      expect(await refused(replies.remove(member, s.org.id, id(s, 'g2')))).toMatchObject({ status: 403 });
      expect(calls('google-reply', ext(s, 'g2'))).toBe(0);
      const approved = await replies.approve(admin, s.org.id, id(s, 'g2'), 'Thanks from the team');
      expect(approved).toMatchObject({ state: 'scheduled', author: member.actor, approvedBy: admin.actor, text: 'Thanks from the team' });
      expect(await refused(replies.cancel(member, s.org.id, id(s, 'g2')))).toMatchObject({ status: 403 });
      expect(await refused(replies.edit(member, s.org.id, id(s, 'g2'), 'sneaky'))).toMatchObject({ status: 403 });
      expect(await refused(replies.draft(member, s.org.id, id(s, 'g2'), 'sneaky'))).toMatchObject({ status: 403 });
      // Not waiting the 5 minutes here: the Admin posts the approved text now.
      await replies.publish(admin, s.org.id, id(s, 'g2'), undefined, { now: true });
      expect((await replies.settled(s.org.id, id(s, 'g2'))).state).toBe('published');
      expect(fake.googleReplies.get(ext(s, 'g2'))?.text).toBe('Thanks from the team');
    });

    it('approve carries what the approver read: a draft changed since (a Member swapped the words) is a 409, nothing scheduled or posted; the words read are what is approved', async () => {
      const s = await shop(0);
      const { service: replies } = await service();
      await replies.draft(member, s.org.id, id(s, 'g1'), 'Thank you for your kind words!');
      // The Owner opens the composer and reads this; meanwhile the Member saves other words.
      const read = (await replies.get(s.org.id, id(s, 'g1'))).text;
      await replies.draft(member, s.org.id, id(s, 'g1'), 'Thanks! Use code FRIEND at cheap-pills.example');
      const swapped = await refused(replies.approve(owner, s.org.id, id(s, 'g1'), read));
      expect(swapped).toMatchObject({ status: 409, message: 'The draft changed since you opened it; read it again.' });
      expect(await replies.get(s.org.id, id(s, 'g1'))).toMatchObject({ state: 'draft', approvedBy: null, text: 'Thanks! Use code FRIEND at cheap-pills.example' });
      expect(await refused(replies.approve(owner, s.org.id, id(s, 'g1'), undefined))).toMatchObject({ status: 400 });
      // Read again, the new words approved (delay 0): those are what Google gets.
      const approved = await replies.approve(owner, s.org.id, id(s, 'g1'), (await replies.get(s.org.id, id(s, 'g1'))).text);
      expect(approved).toMatchObject({ state: 'scheduled', author: member.actor, approvedBy: owner.actor });
      expect((await replies.settled(s.org.id, id(s, 'g1'))).state).toBe('published');
      expect(calls('google-reply', ext(s, 'g1'))).toBe(1);
      expect(fake.googleReplies.get(ext(s, 'g1'))?.text).toBe('Thanks! Use code FRIEND at cheap-pills.example');
    });

    it('a 429 waits Google\'s Retry-After, then the reply is published', async () => {
      const s = await shop();
      const { service: replies } = await service();
      fake.force('google-reply', { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for quota metric.' } } });
      await replies.publish(owner, s.org.id, id(s, 'g0'), 'After the quota', { now: true });
      const waiting = await vi_poll(() => replies.get(s.org.id, id(s, 'g0')), (r) => r.retryAt !== null);
      expect(waiting.state).toBe('publishing');
      expect(waiting.error).toMatch(/rate limiting this account \(429\).*attempt 1 of 3/);
      // The next attempt is due no sooner than Retry-After says (1 s after the attempt was taken).
      expect(Date.parse(waiting.retryAt!) - Date.parse(waiting.updatedAt)).toBeGreaterThanOrEqual(1000);
      const done = await replies.settled(s.org.id, id(s, 'g0'));
      expect(done).toMatchObject({ state: 'published', attempts: 2, error: null });
      expect(fake.googleReplies.get(ext(s, 'g0'))?.text).toBe('After the quota');
    });

    it('5xx on every attempt: failed with the platform\'s reason, a reply.failed event, audited', async () => {
      const s = await shop();
      const { service: replies, port } = await service();
      const outage = { status: 503, body: { error: { code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' } } };
      fake.force('google-reply', outage, outage, outage);
      await replies.publish(owner, s.org.id, id(s, 'g1'), 'During the outage', { now: true });
      const failed = await replies.settled(s.org.id, id(s, 'g1'));
      expect(failed.state).toBe('failed');
      expect(failed.attempts).toBe(3);
      expect(failed.error).toMatch(/^Google is failing \(503\) \(Google said: "The service is currently unavailable\."\); gave up after 3 attempts: publish again later$/);
      expect(port.get(s.org.id, id(s, 'g1'))).toBeUndefined();
      expect(await vi_poll(() => failedEvents(s.org.id), (e) => e.length > 0)).toEqual([{ reviewId: id(s, 'g1'), platform: 'GOOGLE', reason: failed.error }]);
      expect((await vi_poll(() => store.people.audit.listByOrg(s.org.id, 10), (l) => l.some((a) => a.action === 'reply.failed'))).find((a) => a.action === 'reply.failed')?.details.reason).toBe(failed.error);
      expect((await replies.list(s.org.id, 'failed')).map((r) => r.reviewId)).toEqual([id(s, 'g1')]);
      // The source keeps syncing: an outage is not an authorization refusal.
      expect((await store.sources.get(s.google.id))?.state).toBe('active');
    });

    it('a malformed answer from Google: failed at once (not retried), and its reason never says it will be tried again; a reply.failed event says the same', async () => {
      const s = await shop();
      const { service: replies } = await service();
      fake.malformed('google-reply', ['not', 'a', 'ReviewReply']);
      await replies.publish(owner, s.org.id, id(s, 'g2'), 'Thanks, Ana!', { now: true });
      const failed = await replies.settled(s.org.id, id(s, 'g2'));
      expect(failed).toMatchObject({ state: 'failed', attempts: 1 });
      expect(failed.error).toBe('Google answered something that is not its documented shape (the reply\'s answer is not a ReviewReply object): that answer was not used and the reply is not tried again; look at the review on Google, then publish again');
      expect(failed.error).not.toMatch(/will be tried again/);
      expect(await vi_poll(() => failedEvents(s.org.id), (e) => e.length > 0)).toEqual([{ reviewId: id(s, 'g2'), platform: 'GOOGLE', reason: failed.error }]);
    });

    it('an authorization refusal: failed at once (no retries), the source needs_reauth, and the next publish is refused until reconnected', async () => {
      const s = await shop();
      const { service: replies } = await service();
      const unauthorized = { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } } };
      fake.force('google-reply', unauthorized, unauthorized);
      const puts = calls('google-reply');
      await replies.publish(owner, s.org.id, id(s, 'g2'), 'Refused', { now: true });
      const failed = await replies.settled(s.org.id, id(s, 'g2'));
      expect(failed).toMatchObject({ state: 'failed', attempts: 1 });
      expect(failed.error).toMatch(/refused the source's authorization \(401\): reconnect the source/);
      // One call, one retry with a fresh token: then no more.
      expect(calls('google-reply') - puts).toBe(2);
      const source = await store.sources.get(s.google.id);
      expect(source).toMatchObject({ state: 'needs_reauth', lastError: failed.error });
      expect(await refused(replies.publish(owner, s.org.id, id(s, 'g2'), 'Again', { now: true }))).toMatchObject({ status: 409, message: expect.stringMatching(/needs reconnecting/) });
    });

    it('never two replies: a Trustpilot answer lost after Trustpilot took the reply is retried without a second post; the token is kept', async () => {
      const s = await shop();
      const { service: replies, port } = await service();
      const tokens = calls('trustpilot-token');
      fake.loseAnswers['trustpilot-reply'] = 1;
      await replies.publish(owner, s.org.id, id(s, 't0'), 'Sorry about the parcel', { now: true });
      const done = await replies.settled(s.org.id, id(s, 't0'));
      expect(done).toMatchObject({ state: 'published', attempts: 2 });
      expect(fake.trustpilotPosts.filter((p) => p.reviewId === ext(s, 't0'))).toEqual([{ reviewId: ext(s, 't0'), message: 'Sorry about the parcel', authorBusinessUserId: fake.keys.trustpilotBusinessUser }]);
      // Trustpilot's createdAt (read back on the retry) is the reply's date.
      expect(done.date).toBe(fake.trustpilotReplies.get(ext(s, 't0'))!.at);
      expect(await vi_poll(async () => port.get(s.org.id, id(s, 't0')), (r) => r !== undefined)).toEqual({ text: 'Sorry about the parcel', date: done.date });
      await replies.publish(owner, s.org.id, id(s, 't1'), 'Thanks!', { now: true });
      expect((await replies.settled(s.org.id, id(s, 't1'))).state).toBe('published');
      expect(calls('trustpilot-token') - tokens).toBe(1);
    });

    it('never two replies after a crash: a reply left publishing after the platform took it is resumed at start and posted once', async () => {
      const s = await shop();
      const port = new MemoryReviewReplies();
      // The process that died: it had marked the reply publishing and Trustpilot and Google had taken it.
      const stamp = new Date().toISOString();
      for (const [name, text] of [['t2', 'Posted before the crash'], ['g0', 'Google before the crash']] as const) {
        const review = s.reviews.get(name)!;
        await store.replies.put({
          orgId: s.org.id, reviewId: review.id, platform: review.platform, sourceId: review.sourceId ?? null, text, state: 'publishing', scheduledAt: stamp, publishedAt: null, date: null, error: null,
          author: owner.actor, approvedBy: owner.actor, retryAt: null, attempts: 1, createdAt: stamp, updatedAt: stamp,
        });
      }
      await trustpilotReplies.publish({ account: 'bu-1', credentials: { apiKey: fake.keys.trustpilot, apiSecret: fake.keys.trustpilotSecret, businessUserId: fake.keys.trustpilotBusinessUser }, http, urls: fake.urls(), googleOAuth: null, session: new Map() }, ext(s, 't2'), 'Posted before the crash');
      fake.googleReplies.set(ext(s, 'g0'), { text: 'Google before the crash', at: stamp });
      const { service: replies } = await service(port);
      expect((await replies.settled(s.org.id, id(s, 't2'))).state).toBe('published');
      expect((await replies.settled(s.org.id, id(s, 'g0'))).state).toBe('published');
      expect(fake.trustpilotPosts.filter((p) => p.reviewId === ext(s, 't2'))).toHaveLength(1);
      expect([...fake.googleReplies.keys()].filter((k) => k === ext(s, 'g0'))).toHaveLength(1);
      expect((await vi_poll(async () => port.get(s.org.id, id(s, 't2')), (r) => r !== undefined))?.text).toBe('Posted before the crash');
    });

    it('on the BullMQ job door (Redis): a 429 waits Retry-After, then published; a lost Trustpilot answer makes no second post', async () => {
      const s = await shop();
      const queue = new BullKeyedQueue<ReplyJob>({ redisUrl: inject('redisUrl'), keyPrefix: `t${Math.random().toString(36).slice(2, 10)}:`, name: 'replies', logger });
      const { service: replies } = await service(new MemoryReviewReplies(), { queue });
      fake.force('google-reply', { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded.' } } });
      fake.loseAnswers['trustpilot-reply'] = 1;
      await replies.publish(owner, s.org.id, id(s, 'g1'), 'Via Redis', { now: true });
      await replies.publish(owner, s.org.id, id(s, 't1'), 'Via Redis too', { now: true });
      expect(await replies.settled(s.org.id, id(s, 'g1'))).toMatchObject({ state: 'published', attempts: 2 });
      expect(await replies.settled(s.org.id, id(s, 't1'))).toMatchObject({ state: 'published', attempts: 2 });
      expect(fake.googleReplies.get(ext(s, 'g1'))?.text).toBe('Via Redis');
      expect(fake.trustpilotPosts.filter((p) => p.reviewId === ext(s, 't1'))).toHaveLength(1);
    });

    for (const door of ['bullmq', 'in-process'] as const) {
      it(`one organization's replies never queue another's (${door} door): B's reply is published while A's platform answers are held`, async () => {
        const a = await shop();
        const b = await shop();
        // Fewer slots than A's jobs (the server's 8, scaled down): on a first-come-first-served door B's job would wait behind A's.
        const queue = door === 'bullmq'
          ? new BullKeyedQueue<ReplyJob>({ redisUrl: inject('redisUrl'), keyPrefix: `t${Math.random().toString(36).slice(2, 10)}:`, name: 'replies', logger, concurrency: 4 })
          : undefined;
        const { service: replies } = await service(new MemoryReviewReplies(), queue ? { queue } : {});
        // Only A's calls are held (its reviews' ids name its organization); tokens and B's calls are answered.
        fake.holdOnly = (path) => path.includes(a.org.id);
        fake.holding = true;
        try {
          const aIds = ['g0', 'g1', 'g2', 't0', 't1', 't2'].map((name) => id(a, name));
          for (const reviewId of aIds) await replies.publish(owner, a.org.id, reviewId, 'From A', { now: true });
          // A's platform places are taken (2 calls held), the rest of its jobs queued.
          await vi_poll(async () => fake.held.length, (n) => n >= 2);
          await replies.publish(owner, b.org.id, id(b, 'g0'), 'From B', { now: true });
          const done = await vi_poll(() => replies.get(b.org.id, id(b, 'g0')), (r) => r.state === 'published' || r.state === 'failed');
          expect(done).toMatchObject({ state: 'published', attempts: 1 });
          expect(fake.googleReplies.get(ext(b, 'g0'))?.text).toBe('From B');
          // A's were still held meanwhile: none of them posted, only A's calls held, never more than its 2 places.
          const aStates = await Promise.all(aIds.map(async (reviewId) => (await replies.get(a.org.id, reviewId)).state));
          expect(aStates.filter((state) => state === 'published')).toHaveLength(0);
          expect(fake.held.length).toBe(2);
          expect(fake.held.every((h) => h.path.includes(a.org.id))).toBe(true);
        } finally {
          fake.release();
        }
      });
    }

    it('publishes and deletes count at most 60 a minute per organization: the 61st is a 429 with Retry-After; another organization is not counted', async () => {
      const s = await shop(5);
      const other = await shop(5);
      const { service: replies } = await service();
      // DIRECT, after a 5 minute delay: no platform call, nothing posted meanwhile; each publish counts.
      for (let i = 0; i < 60; i++) await replies.publish(owner, s.org.id, id(s, 'direct'), `Thanks ${i}`);
      const refusal = await refused(replies.publish(owner, s.org.id, id(s, 'direct'), 'One too many'));
      expect(refusal).toMatchObject({ status: 429, message: expect.stringMatching(/at most 60 times a minute/) });
      expect(Number(refusal.headers['Retry-After'])).toBeGreaterThan(0);
      expect((await replies.get(s.org.id, id(s, 'direct'))).text).toBe('Thanks 59');
      // A delete counts with them; an approval is a publish.
      expect(await refused(replies.remove(owner, s.org.id, id(s, 'direct')))).toMatchObject({ status: 429 });
      await replies.draft(member, s.org.id, id(s, 'g0'), 'A draft is not counted');
      expect(await refused(replies.approve(admin, s.org.id, id(s, 'g0'), 'A draft is not counted'))).toMatchObject({ status: 429 });
      // Another organization has its own count.
      expect((await replies.publish(owner, other.org.id, id(other, 'direct'), 'Thanks from B')).state).toBe('scheduled');
    });

    it('DIRECT reviews are answered here, with no platform call; the service clock dates them', async () => {
      const s = await shop();
      const { service: replies, port } = await service();
      const before = fake.requests.length;
      await replies.publish(owner, s.org.id, id(s, 'direct'), 'Thanks for writing to us', { now: true });
      const done = await replies.settled(s.org.id, id(s, 'direct'));
      expect(done).toMatchObject({ state: 'published', platform: 'DIRECT', sourceId: null });
      expect(done.date).toBe(done.publishedAt);
      expect(await vi_poll(async () => port.get(s.org.id, id(s, 'direct')), (r) => r !== undefined)).toEqual({ text: 'Thanks for writing to us', date: done.date });
      expect(fake.requests.length).toBe(before);
    });

    it('refuses what cannot be posted with a 400: Yelp and file imports (no reply API), a text over Google\'s limit, a read-only Trustpilot source', async () => {
      const s = await shop();
      const { service: replies } = await service();
      const yelp = await refused(replies.publish(owner, s.org.id, id(s, 'yelp'), 'x', { now: true }));
      expect(yelp).toMatchObject({ status: 400, message: expect.stringMatching(/^Yelp offers no reply API: answer this review on Yelp itself\.$/) });
      expect(await refused(replies.draft(member, s.org.id, id(s, 'yelp'), 'x'))).toMatchObject({ status: 400 });
      expect(await refused(replies.publish(owner, s.org.id, id(s, 'file'), 'x', { now: true }))).toMatchObject({ status: 400, message: expect.stringMatching(/file import.*offers no reply API/) });
      const before = fake.requests.length;
      const long = await refused(replies.publish(owner, s.org.id, id(s, 'g0'), 'ü'.repeat(2049), { now: true }));
      expect(long).toMatchObject({ status: 400, message: expect.stringMatching(/4,098 bytes of UTF-8; Google takes at most 4,096/) });
      expect(await refused(replies.draft(member, s.org.id, id(s, 'g0'), 'ü'.repeat(2049)))).toMatchObject({ status: 400 });
      expect(await refused(replies.publish(owner, s.org.id, id(s, 'g0'), '   ', { now: true }))).toMatchObject({ status: 400 });
      const readOnly = await newSource(s.org, 'TRUSTPILOT', 'bu-2', { apiKey: fake.keys.trustpilot });
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 4, content: 'Nice', date: '2026-11-20T10:00:00.000Z' };
      await store.reviews.upsert(s.org.id, [{ ...base, platform: 'TRUSTPILOT', externalId: `ro-${s.org.id}`, authorName: 'Fay', sourceId: readOnly.id }], new Date());
      const ro = (await store.reviews.list({ orgId: s.org.id, limit: 100, offset: 0 })).items.find((r) => r.externalId === `ro-${s.org.id}`)!;
      expect(await refused(replies.publish(owner, s.org.id, ro.id, 'x', { now: true }))).toMatchObject({ status: 400, message: expect.stringMatching(/reconnect the source with apiSecret and businessUserId/) });
      expect(fake.requests.length).toBe(before);
      expect(await store.replies.get(s.org.id, id(s, 'yelp'))).toBeNull();
      expect(await refused(replies.publish(owner, s.org.id, 'rev_nope', 'x'))).toMatchObject({ status: 404 });
    });

    it('about (the composer\'s view): Google\'s limit in bytes, a read-only Trustpilot source blocked with what is missing, Yelp and file imports without a reply API; no platform call', async () => {
      const s = await shop();
      const { service: replies } = await service();
      const before = fake.requests.length;
      expect(await replies.about(s.org.id, id(s, 'g0'))).toMatchObject({ platform: 'GOOGLE', maxBytes: 4096, noReplyApi: null, blocked: null, reply: null, templates: [], proposal: null });
      expect(await replies.about(s.org.id, id(s, 't1'))).toMatchObject({ platform: 'TRUSTPILOT', maxBytes: null, noReplyApi: null, blocked: null });
      expect((await replies.about(s.org.id, id(s, 'yelp'))).noReplyApi).toMatch(/Yelp offers no reply API/);
      expect((await replies.about(s.org.id, id(s, 'file'))).noReplyApi).toMatch(/file import.*offers no reply API/);
      const readOnly = await newSource(s.org, 'TRUSTPILOT', 'bu-3', { apiKey: fake.keys.trustpilot });
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 4, content: 'Nice', date: '2026-11-20T10:00:00.000Z' };
      await store.reviews.upsert(s.org.id, [{ ...base, platform: 'TRUSTPILOT', externalId: `ab-${s.org.id}`, authorName: 'Gus', sourceId: readOnly.id }], new Date());
      const ro = (await store.reviews.list({ orgId: s.org.id, limit: 100, offset: 0 })).items.find((r) => r.externalId === `ab-${s.org.id}`)!;
      const blocked = await replies.about(s.org.id, ro.id);
      expect(blocked).toMatchObject({ noReplyApi: null });
      expect(blocked.blocked).toMatch(/reconnect the source with apiSecret and businessUserId/);
      await replies.draft(member, s.org.id, id(s, 'g0'), 'Thanks!');
      expect((await replies.about(s.org.id, id(s, 'g0'))).reply).toMatchObject({ state: 'draft', text: 'Thanks!' });
      expect(await refused(replies.about(s.org.id, 'rev_nope'))).toMatchObject({ status: 404 });
      expect(fake.requests.length).toBe(before);
    });

    it('the automatic-reply rule: off by default; Owner/Admin set it (audited), a 400 for bad input or an unsuitable template; the delay kept apart', async () => {
      const s = await shop();
      const { service: replies } = await service();
      expect(await replies.autoReply(s.org.id)).toBeNull();
      const five = await replies.templates.create(owner, s.org.id, { name: 'Five', language: 'en', ratings: [5], text: 'Thank you, {author}!' });
      const good = await replies.templates.create(owner, s.org.id, { name: 'Good', language: 'en', ratings: [4, 5], text: 'Thanks, {author}.' });
      expect(await refused(replies.setAutoReply(member, s.org.id, { enabled: true, minRating: 5, templateId: five.id }))).toMatchObject({ status: 403 });
      expect(await refused(replies.setAutoReply(owner, s.org.id, null))).toMatchObject({ status: 400 });
      expect(await refused(replies.setAutoReply(owner, s.org.id, { enabled: 'yes', minRating: 5, templateId: five.id }))).toMatchObject({ status: 400, message: /enabled/ });
      expect(await refused(replies.setAutoReply(owner, s.org.id, { enabled: true, minRating: 6, templateId: five.id }))).toMatchObject({ status: 400, message: /1 to 5/ });
      expect(await refused(replies.setAutoReply(owner, s.org.id, { enabled: true, minRating: 5, templateId: 'tpl_nope' }))).toMatchObject({ status: 400, message: /No such reply template/ });
      expect(await refused(replies.setAutoReply(owner, s.org.id, { enabled: true, minRating: 4, templateId: five.id }))).toMatchObject({ status: 400, message: /does not suit 4-star/ });
      expect(await replies.autoReply(s.org.id)).toBeNull();
      await replies.setDelay(owner, s.org.id, 7);
      expect(await replies.setAutoReply(admin, s.org.id, { enabled: true, minRating: 4, templateId: good.id })).toEqual({ enabled: true, minRating: 4, templateId: good.id });
      await replies.setDelay(owner, s.org.id, 3);
      expect(await store.replies.settings(s.org.id)).toEqual({ orgId: s.org.id, delayMinutes: 3, autoReply: { enabled: true, minRating: 4, templateId: good.id, since: expect.any(String) } });
      await replies.setAutoReply(owner, s.org.id, { enabled: false, minRating: 4, templateId: good.id });
      const changes = (await store.people.audit.listByOrg(s.org.id, 20)).filter((a) => a.action === 'reply.auto_rule_changed');
      expect(changes.map((a) => [a.actor.userId, a.details.words])).toEqual(expect.arrayContaining([['usr_admin', 'on'], ['usr_owner', 'off']]));
      expect(changes).toHaveLength(2);
    });

    it('the automatic-reply rule schedules one reply, its template filled in, for each NEW review of N+ stars without text, written since it was turned on, collected by a source; none while off, none for reviews that existed, none from a source\'s history, none with text, below N, on Yelp or from a file import (DIRECT included)', async () => {
      const s = await shop(5);
      const { service: replies } = await service();
      const tpl = await replies.templates.create(owner, s.org.id, { name: 'Thanks', language: 'en', ratings: [4, 5], text: 'Thank you, {author}, from {business}!' });
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: '', date: new Date().toISOString() };
      const byExt = async (externalId: string, platform = 'GOOGLE') => (await store.reviews.findByExternalIds(s.org.id, platform, [externalId]))[0]!;
      // A location connected 10 days ago (the rule's grace is about the rule's day; a source's own history is the next test's).
      const location = await newSource(s.org, 'GOOGLE', 'accounts/1/locations/10', { refreshToken: fake.keys.googleRefresh }, new Date(Date.now() - 10 * 24 * 3600_000));
      const synced = (externalId: string, authorName: string) => ({ ...base, platform: 'GOOGLE', externalId: `${s.org.id}-${externalId}`, authorName, sourceId: location.id });
      // While the rule is off (never set, then set off): new blank 5-star reviews get nothing.
      await store.reviews.upsert(s.org.id, [synced('off-1', 'Olga')], new Date());
      await replies.setAutoReply(owner, s.org.id, { enabled: false, minRating: 4, templateId: tpl.id });
      await store.reviews.upsert(s.org.id, [synced('off-2', 'Otto')], new Date());
      await replies.setAutoReply(admin, s.org.id, { enabled: true, minRating: 4, templateId: tpl.id });
      await store.reviews.upsert(s.org.id, [
        synced('new-5', 'Gus'),
        { ...synced('new-4', 'Hana'), rating: 4 },
        // Written a day before the rule was on, published late by its platform: within the 2 days' grace.
        { ...synced('late', 'Liv'), date: new Date(Date.now() - 24 * 3600_000).toISOString() },
        // A newly connected source's history: first stored now, but written years ago.
        { ...synced('old', 'Oscar'), date: '2019-07-04T10:00:00.000Z' },
        { ...synced('old-3d', 'Pia'), date: new Date(Date.now() - 3 * 24 * 3600_000).toISOString() },
        { ...synced('text-5', 'Ida'), content: 'Great place' },
        { ...synced('three', 'Jon'), rating: 3 },
        { ...base, platform: 'YELP', externalId: 'yelp-5', authorName: 'Kim' },
        // File imports: a Google review no source collected, and a DIRECT one (not from the review page).
        { ...base, platform: 'GOOGLE', externalId: 'file-5', authorName: 'Lea' },
        { ...base, platform: 'DIRECT', externalId: 'direct-file-5', authorName: 'Dora' },
        // Existed before the rule was on, written again without text: not new, never answered.
        synced('off-1', 'Olga'),
        { ...s.reviews.get('direct')!, content: '', rating: 5 },
      ], new Date());
      const [newFive, google, late] = [await byExt(`${s.org.id}-new-5`), await byExt(`${s.org.id}-new-4`), await byExt(`${s.org.id}-late`)];
      const scheduled = await vi_poll(() => replies.list(s.org.id, 'scheduled'), (l) => l.length >= 3);
      expect(scheduled.map((r) => r.reviewId).sort()).toEqual([newFive.id, google.id, late.id].sort());
      expect(await store.replies.get(s.org.id, newFive.id)).toMatchObject({ state: 'scheduled', platform: 'GOOGLE', text: 'Thank you, Gus, from Shop!', approvedBy: { userId: null, email: 'automatic reply rule' } });
      expect(await store.replies.get(s.org.id, google.id)).toMatchObject({ state: 'scheduled', platform: 'GOOGLE', sourceId: location.id, text: 'Thank you, Hana, from Shop!' });
      // After the organization's delay (5 minutes here), not at once.
      const due = Date.parse((await store.replies.get(s.org.id, newFive.id))!.scheduledAt!) - Date.now();
      expect(due).toBeGreaterThan(60_000);
      const audits = await vi_poll(async () => (await store.people.audit.listByOrg(s.org.id, 50)).filter((a) => a.action === 'reply.auto_scheduled'), (l) => l.length >= 3);
      expect(audits.map((a) => a.target.id).sort()).toEqual([newFive.id, google.id, late.id].sort());
      expect(audits[0]!.actor).toEqual({ userId: null, email: 'automatic reply rule' });
      expect(audits[0]!.details.by).toMatch(/^automatic reply rule \(4\+ stars, template “Thanks”\)$/);
      for (const [externalId, platform] of [[`${s.org.id}-off-1`, 'GOOGLE'], [`${s.org.id}-off-2`, 'GOOGLE'], [`${s.org.id}-old`, 'GOOGLE'], [`${s.org.id}-old-3d`, 'GOOGLE'], [`${s.org.id}-text-5`, 'GOOGLE'], [`${s.org.id}-three`, 'GOOGLE'], ['yelp-5', 'YELP'], ['file-5', 'GOOGLE'], ['direct-file-5', 'DIRECT'], ['direct-1', 'DIRECT']] as const) {
        expect(await store.replies.get(s.org.id, (await byExt(externalId, platform)).id), externalId).toBeNull();
      }
      // Exactly one: the same review written again, or the hook run twice for one write (a retry), schedules nothing more.
      await store.reviews.upsert(s.org.id, [synced('new-5', 'Gus')], new Date());
      expect(await replies.autoReplyNew(s.org.id, [synced('new-5', 'Gus')], new Date(newFive.createdAt))).toBe(0);
      expect(await replies.list(s.org.id, 'scheduled')).toHaveLength(3);
      // The rule's template deleted meanwhile: skipped, no failure.
      await replies.templates.remove(owner, s.org.id, tpl.id);
      const at = new Date();
      await store.reviews.upsert(s.org.id, [synced('gone-5', 'Max')], at);
      expect(await replies.autoReplyNew(s.org.id, [synced('gone-5', 'Max')], at)).toBe(0);
      expect(await store.replies.get(s.org.id, (await byExt(`${s.org.id}-gone-5`)).id)).toBeNull();
      // Cancellable like any scheduled reply (and nothing left waiting for the 5 minutes).
      for (const r of scheduled) expect(await replies.cancel(owner, s.org.id, r.reviewId)).toMatchObject({ state: 'draft' });
    });

    it('the rule never answers a source\'s history, however young: a location connected long after the rule was turned on answers nothing of its first pass (reviews written since the rule\'s day included, one an hour old); what it collects written after it was connected is answered', async () => {
      const s = await shop(5);
      const { service: replies } = await service();
      // This test runs the hook itself and reads its count (no listener racing it).
      replies.stopListening();
      const tpl = await replies.templates.create(owner, s.org.id, { name: 'Stars', language: 'en', ratings: [4, 5], text: 'Thank you, {author}!' });
      await replies.setAutoReply(owner, s.org.id, { enabled: true, minRating: 4, templateId: tpl.id });
      // The rule has been on for 200 days.
      const day = 24 * 3600_000;
      const settings = await store.replies.settings(s.org.id);
      await store.replies.putSettings({ ...settings, autoReply: { ...settings.autoReply!, since: new Date(Date.now() - 200 * day).toISOString() } });
      // A new location connected now; its first pass stores what was already on Google.
      const location = await newSource(s.org, 'GOOGLE', 'accounts/1/locations/77', { refreshToken: fake.keys.googleRefresh });
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: '' };
      const synced = (name: string, date: Date) => ({ ...base, platform: 'GOOGLE', externalId: `${s.org.id}-${name}`, authorName: name, date: date.toISOString(), sourceId: location.id });
      const ago = (ms: number) => new Date(Date.parse(location.createdAt) - ms);
      const history = [synced('h-199d', ago(199 * day)), synced('h-30d', ago(30 * day)), synced('h-1d', ago(day)), synced('h-1h', ago(3600_000))];
      const first = new Date();
      await store.reviews.upsert(s.org.id, history, first);
      expect(await replies.autoReplyNew(s.org.id, history, first)).toBe(0);
      const stored = await store.reviews.findByExternalIds(s.org.id, 'GOOGLE', history.map((r) => r.externalId));
      expect(stored).toHaveLength(4);
      for (const r of stored) expect(await store.replies.get(s.org.id, r.id), r.externalId).toBeNull();
      // Its next sync: a review written after the location was connected is answered.
      const fresh = [synced('fresh', new Date(Math.max(Date.now(), Date.parse(location.createdAt))))];
      const next = new Date();
      await store.reviews.upsert(s.org.id, fresh, next);
      expect(await replies.autoReplyNew(s.org.id, fresh, next)).toBe(1);
      const answered = (await store.reviews.findByExternalIds(s.org.id, 'GOOGLE', [fresh[0]!.externalId]))[0]!;
      expect(await store.replies.get(s.org.id, answered.id)).toMatchObject({ state: 'scheduled', sourceId: location.id, text: 'Thank you, fresh!' });
      await replies.cancel(owner, s.org.id, answered.id);
    });

    it('the rule\'s replies have their own budget: they never use up the people\'s publishes, and past theirs they wait their turn (scheduled later), never dropped', async () => {
      const s = await shop(5);
      // Small budgets to see both: the people's 2 a minute, the rule's 3.
      const { service: replies } = await service(undefined, { minuteMs: 1, actions: new ReplyActionLimiter(null, 2), autoActions: new ReplyActionLimiter(null, 3, 'reply-auto') });
      const tpl = await replies.templates.create(owner, s.org.id, { name: 'Stars', language: 'en', ratings: [5], text: 'Thank you, {author}!' });
      await replies.setAutoReply(owner, s.org.id, { enabled: true, minRating: 5, templateId: tpl.id });
      const now = new Date().toISOString();
      const names = ['a', 'b', 'c', 'd', 'e'].map((n) => `${s.org.id}-budget-${n}`);
      fake.google.push(...names.map((reviewId) => ({ ...googleReviews[0]!, reviewId, comment: '', createTime: now, updateTime: now })));
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: '', date: now };
      await store.reviews.upsert(s.org.id, names.map((externalId, i) => ({ ...base, platform: 'GOOGLE', externalId, authorName: `Guest ${i}`, sourceId: s.google.id })), new Date());
      const ids = (await store.reviews.findByExternalIds(s.org.id, 'GOOGLE', names)).map((r) => r.id);
      expect(ids).toHaveLength(5);
      // All five scheduled and audited: none dropped.
      const audits = await vi_poll(async () => (await store.people.audit.listByOrg(s.org.id, 50)).filter((a) => a.action === 'reply.auto_scheduled'), (l) => l.length >= 5);
      expect(audits.map((a) => a.target.id).sort()).toEqual([...ids].sort());
      // Three posted (the rule's budget), two waiting their turn, scheduled past the minute's window.
      const states = await vi_poll(async () => Promise.all(ids.map((id) => replies.get(s.org.id, id))), (l) => l.filter((r) => r.state === 'published').length === 3 && l.filter((r) => r.state === 'scheduled').length === 2);
      for (const r of states.filter((x) => x.state === 'scheduled')) expect(Date.parse(r.scheduledAt!)).toBeGreaterThan(Date.parse(r.createdAt));
      expect(names.filter((n) => fake.googleReplies.has(n))).toHaveLength(3);
      // The people's budget is untouched: the Owner publishes twice (their 2 a minute); only their own third is refused.
      await replies.publish(owner, s.org.id, id(s, 'direct'), 'Thanks, Cleo!');
      await replies.publish(owner, s.org.id, id(s, 'g0'), 'Thank you, Ana!');
      expect(await refused(replies.publish(owner, s.org.id, id(s, 'g1'), 'One too many'))).toMatchObject({ status: 429 });
      // Nothing left waiting behind the test.
      for (const r of states.filter((x) => x.state === 'scheduled')) await replies.cancel(owner, s.org.id, r.reviewId);
    });

    it('the rule\'s reply is looked at again just before it is posted: a reply written on the platform meanwhile (Google, Trustpilot) is never replaced or deleted, an edit into a 1-star complaint or the rule turned off withdraws it; each back to draft with the reason (quoting the reply found there), audited', async () => {
      const s = await shop(5);
      const { service: replies } = await service();
      const tpl = await replies.templates.create(owner, s.org.id, { name: 'Stars', language: 'en', ratings: [4, 5], text: 'Thank you for the five stars, {author}!' });
      await replies.setAutoReply(owner, s.org.id, { enabled: true, minRating: 4, templateId: tpl.id });
      const now = new Date().toISOString();
      const base = { authorAvatar: null, url: null, language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [], rating: 5, content: '', date: now };
      const [gNew, gEdit, gOff] = ['g-new', 'g-edit', 'g-off'].map((n) => `${s.org.id}-${n}`) as [string, string, string];
      fake.google.push(...[gNew, gEdit, gOff].map((reviewId) => ({ ...googleReviews[0]!, reviewId, comment: '', createTime: now, updateTime: now })));
      const tNew = trustpilotReviews(1, Date.now(), `tp-new-${s.org.id}`)[0]!;
      fake.trustpilot.push(tNew);
      const google = (externalId: string, authorName: string) => ({ ...base, platform: 'GOOGLE', externalId, authorName, sourceId: s.google.id });
      await store.reviews.upsert(s.org.id, [google(gNew, 'Gina'), google(gEdit, 'Hugo'), { ...base, platform: 'TRUSTPILOT', externalId: tNew.id, authorName: 'Tara', sourceId: s.trustpilot.id }], new Date());
      const byExt = async (externalId: string, platform = 'GOOGLE') => (await store.reviews.findByExternalIds(s.org.id, platform, [externalId]))[0]!;
      const [g, e, t] = [await byExt(gNew), await byExt(gEdit), await byExt(tNew.id, 'TRUSTPILOT')];
      await vi_poll(() => replies.list(s.org.id, 'scheduled'), (l) => l.length >= 3);
      // During the delay: the owner answers on Google and on Trustpilot themselves (no sync since), and Hugo edits his review into a complaint (a sync brings it).
      const owners = 'Hi, thanks! (written by the owner herself, on the platform)';
      fake.googleReplies.set(gNew, { text: owners, at: now });
      fake.trustpilotReplies.set(tNew.id, { text: owners, at: now });
      await store.reviews.upsert(s.org.id, [{ ...google(gEdit, 'Hugo'), rating: 1, content: 'Found a hair in my soup and the staff laughed at me.' }], new Date());
      // Due now.
      for (const r of [g, e, t]) await store.replies.update(s.org.id, r.id, ['scheduled'], { scheduledAt: new Date().toISOString() });
      const settled = async (reviewId: string) => vi_poll(() => replies.get(s.org.id, reviewId), (r) => r.state !== 'scheduled' && r.state !== 'publishing');
      expect(await settled(g.id)).toMatchObject({ state: 'draft', approvedBy: null, scheduledAt: null, text: 'Thank you for the five stars, Gina!', error: expect.stringMatching(/^Not posted: Google already shows another reply/) });
      expect(await settled(t.id)).toMatchObject({ state: 'draft', approvedBy: null, error: expect.stringMatching(/^Not posted: Trustpilot already shows another reply/) });
      // The reason quotes the reply found there: what an approver reads in the composer before replacing it.
      for (const r of [g, t]) expect((await replies.get(s.org.id, r.id)).error).toContain(`“${owners}”`);
      expect(await settled(e.id)).toMatchObject({ state: 'draft', approvedBy: null, error: expect.stringMatching(/has text now/) });
      // Nothing posted, replaced or deleted: the owner's replies stand.
      expect(fake.googleReplies.get(gNew)?.text).toBe(owners);
      expect(fake.trustpilotReplies.get(tNew.id)?.text).toBe(owners);
      expect(fake.requests.filter((r) => r.platform === 'google-reply' && (r.path.includes(encodeURIComponent(gNew)) || r.path.includes(encodeURIComponent(gEdit))))).toEqual([]);
      expect(fake.requests.filter((r) => r.platform === 'trustpilot-reply' && r.path.includes(encodeURIComponent(tNew.id)))).toEqual([]);
      expect(fake.googleReplies.has(gEdit)).toBe(false);
      // The rule turned off during the delay: its waiting reply is withdrawn too.
      await store.reviews.upsert(s.org.id, [google(gOff, 'Olaf')], new Date());
      const o = await byExt(gOff);
      await vi_poll(() => store.replies.get(s.org.id, o.id), (r) => r?.state === 'scheduled');
      await replies.setAutoReply(owner, s.org.id, { enabled: false, minRating: 4, templateId: tpl.id });
      await store.replies.update(s.org.id, o.id, ['scheduled'], { scheduledAt: new Date().toISOString() });
      expect(await settled(o.id)).toMatchObject({ state: 'draft', error: expect.stringMatching(/turned off/) });
      expect(fake.googleReplies.has(gOff)).toBe(false);
      const withdrawn = await vi_poll(async () => (await store.people.audit.listByOrg(s.org.id, 50)).filter((a) => a.action === 'reply.auto_withdrawn'), (l) => l.length >= 4);
      expect(withdrawn.map((a) => a.target.id).sort()).toEqual([g.id, e.id, t.id, o.id].sort());
      expect(withdrawn[0]!.actor).toEqual({ userId: null, email: 'automatic reply rule' });
      // A person's publish still replaces (the composer's choice): the Owner publishes the withdrawn draft on Google now.
      expect(await refused(replies.publish(owner, s.org.id, g.id, undefined, { now: true }))).toMatchObject({ status: 400, message: expect.stringMatching(/^Send the draft's text as you read it/) });
      await replies.publish(owner, s.org.id, g.id, 'Thank you for the five stars, Gina!', { now: true });
      expect((await replies.settled(s.org.id, g.id)).state).toBe('published');
      expect(fake.googleReplies.get(gNew)?.text).toBe('Thank you for the five stars, Gina!');
    });

    it('delete: Owner or Admin remove the reply from the platform and the review, audited', async () => {
      const s = await shop();
      const { service: replies, port } = await service();
      await replies.publish(owner, s.org.id, id(s, 't1'), 'To be removed', { now: true });
      expect((await replies.settled(s.org.id, id(s, 't1'))).state).toBe('published');
      const removed = await replies.remove(admin, s.org.id, id(s, 't1'));
      expect(removed).toMatchObject({ state: 'deleted', date: null, publishedAt: null });
      expect(fake.trustpilotReplies.has(ext(s, 't1'))).toBe(false);
      expect(port.get(s.org.id, id(s, 't1'))).toBeNull();
      expect((await store.people.audit.listByOrg(s.org.id, 10)).find((a) => a.action === 'reply.deleted')).toMatchObject({ actor: { userId: 'usr_admin' }, target: { id: id(s, 't1') } });
      // Removing again: the platform has none (404), which is what was asked.
      expect((await replies.remove(OPERATOR_CALLER, s.org.id, id(s, 't1'))).state).toBe('deleted');
    });

    it('delete asks the platform whenever a reply may be there: a draft saved over a published reply, or a review showing a reply written elsewhere', async () => {
      const s = await shop();
      const { service: replies, port } = await service();
      await replies.publish(owner, s.org.id, id(s, 'g2'), 'Thanks, Guest 1!', { now: true });
      expect((await replies.settled(s.org.id, id(s, 'g2'))).state).toBe('published');
      // A Member saves a better draft over it: the published words are still on Google.
      expect(await replies.draft(member, s.org.id, id(s, 'g2'), 'Thank you so much, Guest 1!')).toMatchObject({ state: 'draft' });
      expect(await replies.remove(owner, s.org.id, id(s, 'g2'))).toMatchObject({ state: 'deleted' });
      expect(fake.requests.filter((r) => r.platform === 'google-reply' && r.method === 'DELETE' && r.path.includes(encodeURIComponent(ext(s, 'g2'))))).toHaveLength(1);
      expect(fake.googleReplies.has(ext(s, 'g2'))).toBe(false);
      expect(port.get(s.org.id, id(s, 'g2'))).toBeNull();
      // A reply written on Trustpilot, which a sync brought into the review, under a draft of ours never published.
      fake.trustpilotReplies.set(ext(s, 't2'), { text: 'Written on Trustpilot', at: new Date().toISOString() });
      const t2 = s.reviews.get('t2')!;
      const { id: _i, orgId: _o, createdAt: _c, updatedAt: _u, ...input } = t2;
      await store.reviews.upsert(s.org.id, [{ ...input, reply: { text: 'Written on Trustpilot', date: new Date().toISOString() } }], new Date());
      await replies.draft(member, s.org.id, id(s, 't2'), 'Our draft');
      expect(await replies.remove(owner, s.org.id, id(s, 't2'))).toMatchObject({ state: 'deleted' });
      expect(fake.trustpilotReplies.has(ext(s, 't2'))).toBe(false);
    });
  });
}

/** Polls `read` until `ok` (bounded), for a state written by the job in the background. */
async function vi_poll<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
