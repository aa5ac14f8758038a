/**
 * Every way into the MongoDB store answers StoreUnavailableError (the API's
 * 503) when the server is gone, never a raw driver error (a 500): each method
 * of every part of the store, called while FerretDB is down, and writes with
 * the outbox (an organization with an endpoint: events ride in the reviews,
 * the relay moves them) in flight at the moment FerretDB is killed.
 */
import { rmSync } from 'node:fs';
import { afterAll, expect, inject, it } from 'vitest';
import { generateFixture } from '../reviews/fixtures.ts';
import { startFerretdb, type RunningFerretdb } from '../test/ferretdb.ts';
import { describeOn, ferretdbTarget } from '../test/mongo-suites.ts';
import { newMessageId } from '../webhooks/events.ts';
import { newId } from './ids.ts';
import { MongoStore } from './mongo/store.ts';
import { StoreUnavailableError } from './unavailable.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What each rejection was, by the call that made it: only StoreUnavailableError may appear. */
function kinds(outcomes: Map<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [call, err] of outcomes) if (!(err instanceof StoreUnavailableError)) out[call] = `${(err as Error)?.constructor?.name}: ${(err as Error)?.message}`;
  return out;
}

describeOn(ferretdbTarget(), 'the MongoDB store with its server gone', () => {
  let ferret: RunningFerretdb | undefined;
  let store: MongoStore | undefined;
  afterAll(async () => {
    await store?.close();
    await ferret?.stop();
    if (ferret) rmSync(ferret.dir, { recursive: true, force: true });
  });

  it('answers StoreUnavailableError from every method, and from writes with events in flight when it dies', async () => {
    const bin = inject('ferretdb').bin;
    ferret = await startFerretdb(bin);
    const s = (store = await MongoStore.connect(ferret.url, 'unavailable'));
    const stamp = new Date().toISOString();
    const orgId = newId('org');
    await s.orgs.create({ id: orgId, name: 'Gone', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
    const endpoint = {
      id: newId('wh'), orgId, url: 'https://hooks.example.test/', events: ['review.created' as const, 'review.updated' as const, 'review.removed' as const], description: '',
      state: 'enabled' as const, disabledReason: null, createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'sealed',
    };
    await s.webhooks.create(endpoint);
    const fixture = generateFixture({ sizes: [2000] });
    const inputs = fixture.inputs(fixture.orgIds[0]!);
    await s.reviews.upsert(orgId, inputs.slice(0, 100), new Date());

    // Writes and relays in flight when the server is killed.
    const inFlight = new Map<string, unknown>();
    let stop = false;
    let next = 100;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const batch = inputs.slice(next, next + 50);
        next += 50;
        // New reviews, edits of stored ones (review.updated), removals (review.removed).
        const edited = inputs.slice(i * 10, i * 10 + 10).map((r) => ({ ...r, content: `${r.content} (edit ${n}.${i})` }));
        await s.reviews.upsert(orgId, [...batch, ...edited], new Date()).catch((err: unknown) => inFlight.set(`upsert ${n}.${i}`, err));
        await s.reviews.remove(orgId, inputs[i]!.platform, [inputs[i]!.externalId], new Date(), new Date()).catch((err: unknown) => inFlight.set(`remove ${n}.${i}`, err));
      }
    };
    const relay = async () => {
      for (let i = 0; !stop; i++) {
        await s.webhooks.unfanned(100).catch((err: unknown) => inFlight.set(`unfanned ${i}`, err));
        await s.relayOutbox(100).catch((err: unknown) => inFlight.set(`relayOutbox ${i}`, err));
      }
    };
    const running = [writer(1), writer(2), relay(), relay()];
    while (next < 400) await sleep(20);
    ferret.process.kill('SIGKILL');
    await new Promise((r) => ferret!.process.once('exit', r));
    await sleep(500);
    stop = true;
    await Promise.all(running);
    expect(inFlight.size).toBeGreaterThan(0);
    expect(kinds(inFlight)).toEqual({});

    // Every method of every part, and the store's own, with the server away.
    const review = { ...inputs[0]!, externalId: 'gone-1' };
    const delivery = { id: 'm~e', messageId: 'm', endpointId: endpoint.id, orgId, type: 'review.created' as const, status: 'pending' as const, attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: stamp, createdAt: stamp };
    const message = { id: newMessageId(), orgId, type: 'webhook.test' as const, body: '{}', createdAt: stamp, endpointId: endpoint.id };
    const listQuery = { orgId, limit: 5, offset: 0 } as never;
    const submission = { id: 'sub_goneaaaaaaaaaaaaaaaa', orgId, collectId: 'col_gone', productId: null, rating: 3, content: 'x', authorName: 'x', email: 'x@example.com', emailKey: 'k', language: 'en', state: 'pending', hold: 'no_mail', confirmed: false, rejectReason: null, confirmExpiresAt: null, reviewExternalId: null, mailSentAt: null, submittedAt: stamp, decidedAt: null, updatedAt: stamp };
    const invitation = { id: 'inv_gone0000000000000000', orgId, email: 'x@example.com', emailKey: 'k', name: null, productId: null, orderRef: null, locale: null, state: 'scheduled', reason: null, lastError: null, createdAt: stamp, sendAt: stamp, sentAt: null, remindedAt: null, reviewedAt: null, submissionId: null, updatedAt: stamp };
    const args: Record<string, unknown[]> = {
      'reviews.list': [listQuery],
      'reviews.stats': [{ orgId, now: new Date() }],
      'reviews.monthly': [{ orgId, from: '2026-01', to: '2026-06' }],
      'reviews.replyFigures': [{ orgId, now: new Date() }],
      'reviews.upsert': [orgId, [review], new Date()],
      'reviews.remove': [orgId, review.platform, [review.externalId], new Date()],
      'reviews.findByExternalIds': [orgId, review.platform, [review.externalId]],
      'reviews.disown': [orgId, review.platform, [review.externalId], 'src_x'],
      'products.upsert': [{ orgId, id: 'sku-1', name: 'A product', url: null, imageUrl: null, gtin: null, brand: null }, new Date()],
      'products.list': [orgId],
      'webhooks.create': [{ ...endpoint, id: newId('wh') }],
      'webhooks.addMessage': [message],
      'webhooks.fanOut': [message.id, [delivery]],
      'webhooks.putDelivery': [delivery],
      'webhooks.due': [new Date(), 10],
      'webhooks.deliveries': [endpoint.id, null, 10],
      'webhooks.unfanned': [10],
      'keys.revoke': ['x', new Date()],
      'keys.touch': ['x', new Date()],
      'sessions.touch': ['x', new Date()],
      'audit.listByOrg': [orgId, 10],
      'webhooks.prune': [new Date(), 10],
      'invitations.reopen': ['x', new Date()],
      'collect.putSettings': [{ orgId, collectId: 'col_gone', shareUrl: null, moderation: 'publish', updatedAt: stamp }],
      'collect.create': [submission],
      'collect.update': [submission, { state: 'pending', updatedAt: stamp }],
      'collect.findPublished': [orgId, 'k', null],
      'collect.listByState': [orgId, 'pending'],
      'collect.removeExpired': [stamp, 10],
      'reviewInvitations.create': [orgId, [invitation], { max: 10 }],
      'reviewInvitations.update': [invitation, { state: 'scheduled', updatedAt: stamp }],
      'reviewInvitations.list': [orgId, { limit: 10, offset: 0 }],
      'reviewInvitations.unsubscribe': [orgId, 'k', stamp],
      'reviewInvitations.unsubscribedAt': [orgId, 'k'],
      'reviewInvitations.due': [stamp, 10],
      'reviewInvitations.remindersDue': [stamp, 10],
      'reviewInvitations.expiring': [stamp, 10],
      'reviewInvitations.ofAddress': [orgId, 'k', 10],
      'reviewInvitations.purge': [stamp, 10],
      'reviewInvitations.erase': [orgId, 'k'],
    };
    const calls: [string, () => Promise<unknown>][] = [];
    const parts = { orgs: s.orgs, keys: s.keys, widgets: s.widgets, reviews: s.reviews, products: s.products, collect: s.collect, moderation: s.moderation, sources: s.sources, webhooks: s.webhooks, users: s.people.users, sessions: s.people.sessions, invitations: s.people.invitations, audit: s.people.audit, reviewInvitations: s.invitations };
    for (const [part, object] of Object.entries(parts)) {
      for (const [name, fn] of Object.entries(object)) {
        if (typeof fn !== 'function') continue;
        const given = args[`${part}.${name}`] ?? ['x', { id: 'x', orgId }, 10];
        calls.push([`${part}.${name}`, () => (fn as (...a: unknown[]) => Promise<unknown>).apply(object, given)]);
      }
    }
    calls.push(['relayOutbox', () => s.relayOutbox(10)], ['ping', () => s.ping()]);
    const outcomes = new Map<string, unknown>();
    await Promise.all(calls.map(async ([name, call]) => call().then(() => undefined, (err: unknown) => outcomes.set(name, err))));
    expect(outcomes.size).toBeGreaterThan(calls.length / 2);
    expect(kinds(outcomes)).toEqual({});
  }, 120_000);
});
