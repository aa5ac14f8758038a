/**
 * One organization's webhook backlog never delays another's events (issue 34,
 * hardening M2), and a delivery is never kept for an endpoint removed
 * meanwhile (L3), on both stores: the embedded one and MongoDB (FerretDB).
 *
 * The outbox is taken fairly across organizations: `unfanned` answers
 * round-robin over the organizations with messages waiting, oldest first
 * within each, and the MongoDB store relays its outbox (events riding in the
 * review documents) a bounded round at a time the same way. The embedded
 * store fans an import's events out in the import's own write, so only the
 * MongoDB store has an import backlog to relay: the end-to-end case runs there,
 * with the dispatcher and a real HTTPS receiver on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import type { MongoStore } from '../store/mongo/store.ts';
import type { ReviewInput, Store } from '../store/types.ts';
import { deliveryId, freshDelivery, type OutboxMessage } from '../store/webhook-types.ts';
import { describeOn, ferretdbTarget, openMongoStore } from '../test/mongo-suites.ts';
import { createDeliveryClient } from './deliver.ts';
import { Dispatcher, sealSecrets } from './dispatcher.ts';
import { newMessageId } from './events.ts';
import { reviewFixture } from './fixtures.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret } from './secrets.ts';
import { startReceiver, testCert, type Receiver, type TestCert } from './test-receiver.ts';

const box = new SecretBox(Buffer.alloc(32, 7));

async function newOrg(store: Store, name: string): Promise<string> {
  const stamp = new Date().toISOString();
  const id = newId('org');
  await store.orgs.create({ id, name, plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  return id;
}

async function newEndpoint(store: Store, orgId: string, url: string): Promise<string> {
  const stamp = new Date().toISOString();
  const id = newId('wh');
  await store.webhooks.create({
    id, orgId, url, events: ['review.created'], description: '', state: 'enabled', disabledReason: null, createdAt: stamp, updatedAt: stamp,
    lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, id, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
  });
  return id;
}

function message(orgId: string, at: number): OutboxMessage {
  return { id: newMessageId(), orgId, type: 'review.created', body: '{"type":"review.created"}', createdAt: new Date(at).toISOString(), endpointId: null };
}

function reviews(prefix: string, count: number): ReviewInput[] {
  return Array.from({ length: count }, (_, n) => {
    const { id: _i, orgId: _o, createdAt: _c, updatedAt: _u, productId: _p, ...input } = reviewFixture({ externalId: `${prefix}-${n}`, date: new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString() });
    return input;
  });
}

interface Subject {
  name: string;
  open(): Promise<{ store: Store; done(): Promise<void> }>;
}

const embedded: Subject = {
  name: 'embedded',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'fair-relay-'));
    const store = await EmbeddedStore.open(dir);
    return {
      store,
      async done() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const target = ferretdbTarget();
const mongo: Subject = {
  name: 'MongoDB',
  async open() {
    const store = await openMongoStore(target, 'fair-relay');
    return {
      store,
      async done() {
        await store.dropDatabase();
        await store.close();
      },
    };
  },
};

/** The store-level promises, on each store. */
function storeSuite(subject: Subject): void {
  let store: Store;
  let done: () => Promise<void>;
  beforeAll(async () => {
    ({ store, done } = await subject.open());
  });
  afterAll(() => done?.());

  it("answers another organization's waiting message in the first batch, behind a backlog of 300 (each organization oldest first)", async () => {
    const a = await newOrg(store, 'Backlog A');
    const c = await newOrg(store, 'Quiet C');
    const base = Date.UTC(2026, 10, 28, 12);
    const backlog = Array.from({ length: 300 }, (_, n) => message(a, base + n));
    for (let i = 0; i < backlog.length; i += 50) await Promise.all(backlog.slice(i, i + 50).map((m) => store.webhooks.addMessage(m)));
    const late = message(c, base + 1000);
    await store.webhooks.addMessage(late);

    const batch = await store.webhooks.unfanned(100);
    expect(batch).toHaveLength(100);
    expect(batch.filter((m) => m.orgId === c).map((m) => m.id)).toEqual([late.id]);
    expect(batch.filter((m) => m.orgId === a).map((m) => m.id)).toEqual(backlog.slice(0, 99).map((m) => m.id));
    // Settled, so that the next test starts from an empty outbox.
    for (const m of [...backlog, late]) await store.webhooks.fanOut(m.id, []);
    expect(await store.webhooks.unfanned(10)).toEqual([]);
  }, 120_000);

  it('keeps no delivery (fan-out or put) for an endpoint removed meanwhile', async () => {
    const orgId = await newOrg(store, 'Removed endpoint');
    const endpointId = await newEndpoint(store, orgId, 'https://127.0.0.1:9/hook');
    const m = message(orgId, Date.now());
    await store.webhooks.addMessage(m);
    // The dispatcher listed the endpoint, then it was removed before the fan-out's write.
    const delivery = freshDelivery(m, endpointId, new Date().toISOString());
    expect(await store.webhooks.remove(endpointId)).toBe(true);
    await store.webhooks.fanOut(m.id, [delivery]);
    expect(await store.webhooks.getDelivery(delivery.id)).toBeNull();
    // A worker's result (a retry scheduled) written after the removal.
    await store.webhooks.putDelivery({ ...delivery, attempts: 1, lastStatusCode: 503, lastAttemptAt: new Date().toISOString() });
    expect(await store.webhooks.getDelivery(deliveryId(m.id, endpointId))).toBeNull();
    expect(await store.webhooks.deliveries(endpointId, null, 10)).toEqual([]);
  }, 60_000);
}

describe('fair outbox [embedded]', () => storeSuite(embedded));
describeOn(target, 'fair outbox', () => storeSuite(mongo));

describeOn(target, 'fair relay on MongoDB', () => {
  /** A database of each test's own: nothing left in one outbox by a test is relayed in the next. */
  let store: MongoStore;
  let cert: TestCert;
  let receiver: Receiver;
  beforeAll(async () => {
    cert = await testCert();
    receiver = await startReceiver(cert);
  });
  beforeEach(async () => {
    store = await openMongoStore(target, 'fair-relay-dispatch');
  });
  afterEach(async () => {
    await store?.dropDatabase();
    await store?.close();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("relays another organization's review in the first round behind a backlog of 300 reviews", async () => {
    const a = await newOrg(store, 'Import A');
    const c = await newOrg(store, 'Review C');
    await newEndpoint(store, a, receiver.url());
    await newEndpoint(store, c, receiver.url());
    await store.reviews.upsert(a, reviews('a', 300), new Date());
    await store.reviews.upsert(c, reviews('c', 1), new Date());

    const batch = await store.webhooks.unfanned(100);
    expect(batch.filter((m) => m.orgId === c)).toHaveLength(1);
    expect(batch.filter((m) => m.orgId === a).length).toBeGreaterThan(0);
  }, 120_000);

  it("delivers another organization's event while one organization's backlog of 300 reviews × 2 endpoints is mostly not fanned out", async () => {
    const a = await newOrg(store, 'Import A2');
    const c = await newOrg(store, 'Review C2');
    const aEndpoints = [await newEndpoint(store, a, receiver.url()), await newEndpoint(store, a, receiver.url())];
    const cEndpoint = await newEndpoint(store, c, receiver.url());
    await store.reviews.upsert(a, reviews('a2', 300), new Date());
    await store.reviews.upsert(c, reviews('c2', 1), new Date());

    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 3_600_000 });
    try {
      dispatcher.start();
      await vi.waitFor(async () => expect(await store.webhooks.deliveries(cEndpoint, 'delivered', 1)).toHaveLength(1), { timeout: 90_000, interval: 50 });
      // C's event went out while fewer than half of A's 300 had even been fanned out to A's endpoints.
      for (const id of aEndpoints) expect((await store.webhooks.deliveries(id, null, 300)).length).toBeLessThan(150);
    } finally {
      await dispatcher.close();
      client.close();
    }
  }, 120_000);
});
