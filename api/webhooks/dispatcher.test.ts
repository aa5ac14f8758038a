/**
 * The dispatcher's per-endpoint workers: an endpoint that never answers holds
 * up only its own deliveries; another endpoint of the same organization gets
 * every message meanwhile. Real HTTPS receivers on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BulkImports } from '../jobs/bulk-imports.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import type { ReviewInput } from '../store/types.ts';
import { createDeliveryClient } from './deliver.ts';
import { Dispatcher, sealSecrets } from './dispatcher.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret } from './secrets.ts';
import { startReceiver, testCert } from './test-receiver.ts';

/** An embedded store with one organization and its endpoints at `urls`, and a review input maker. */
async function setUp(urls: string[], box: SecretBox): Promise<{ dir: string; store: EmbeddedStore; orgId: string; input: (id: string) => ReviewInput }> {
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-dispatch-'));
  const store = await EmbeddedStore.open(dir);
  const stamp = new Date().toISOString();
  const orgId = newId('org');
  await store.orgs.create({ id: orgId, name: 'One', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  for (const url of urls) {
    const id = newId('wh');
    await store.webhooks.create({
      id, orgId, url, events: ['review.created'], description: '', state: 'enabled', disabledReason: null, createdAt: stamp, updatedAt: stamp,
      lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, id, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
    });
  }
  const input = (id: string): ReviewInput => ({
    platform: 'GOOGLE', externalId: id, authorName: 'A', authorAvatar: null, rating: 4, content: id, date: stamp, url: null,
    language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [],
  });
  return { dir, store, orgId, input };
}

/** Closes what a test opened, in that order: the dispatcher (its workers end), the client, the receivers, the store and its folder. */
async function closeAll(dispatcher: Dispatcher, client: { close(): void }, receivers: { close(): Promise<void> }[], store: EmbeddedStore, dir: string): Promise<void> {
  await dispatcher.close();
  client.close();
  for (const r of receivers) await r.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Waits for `ok` (checked every 10 ms, 20 s at most). `what` may be a function, for a message with the state at the end. */
async function until(what: string | (() => string), ok: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Bulk imports whose holds (calls of `idle`) are counted. */
function countedBulk(): { bulk: BulkImports; holds: () => number } {
  const bulk = new BulkImports();
  let holds = 0;
  const idle = bulk.idle.bind(bulk);
  bulk.idle = (...args) => (holds++, idle(...args));
  return { bulk, holds: () => holds };
}

describe('dispatcher', () => {
  it('is woken by the store write that filled the outbox, not only by its poll', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 3));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    // An hour between polls: only the wake-up can find the message within this test.
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 3_600_000 });
    try {
      dispatcher.start();
      // The start-up sweep finds nothing and ends (waiting longer only makes the condition below stricter).
      await new Promise((r) => setTimeout(r, 300));
      await store.reviews.upsert(orgId, [input('w')], new Date());
      const end = Date.now() + 20_000;
      while (receiver.received.length < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it('holds an organization’s deliveries while a bulk import of it runs in this process, and sends them all once it ends; another organization’s go on', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 7));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    // A second organization with its own endpoint on another path of the same receiver.
    const stamp = new Date().toISOString();
    const otherOrg = newId('org');
    await store.orgs.create({ id: otherOrg, name: 'Two', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
    const otherId = newId('wh');
    await store.webhooks.create({
      id: otherId, orgId: otherOrg, url: receiver.url().replace('/hook', '/other'), events: ['review.created'], description: '', state: 'enabled', disabledReason: null,
      createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, otherId, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
    });
    const bulk = new BulkImports();
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, bulk });
    try {
      dispatcher.start();
      const end = bulk.begin(orgId);
      await store.reviews.upsert(orgId, Array.from({ length: 5 }, (_, i) => input(`b${i}`)), new Date());
      await store.reviews.upsert(otherOrg, [input('o1')], new Date());
      await until('the other organization’s delivery', () => receiver.received.some((r) => r.headers['webhook-id'] !== undefined && JSON.parse(r.body).data.content === 'o1'));
      await new Promise((r) => setTimeout(r, 500));
      // Held: nothing of the importing organization yet, however many sweeps went by.
      expect(receiver.received.map((r) => JSON.parse(r.body).data.content as string)).toEqual(['o1']);
      end();
      await until(() => `the five held deliveries (received ${receiver.received.length})`, () => receiver.received.length === 6);
      expect(receiver.received.slice(1).map((r) => JSON.parse(r.body).data.content as string).sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    } finally {
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it('holds for a bulk import 30 s at a time at most (here 200 ms): a long one still lets its deliveries out, a batch per hold', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 9));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    const { bulk, holds } = countedBulk();
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, bulk, bulkHoldMs: 200 });
    const end = bulk.begin(orgId);
    try {
      dispatcher.start();
      await store.reviews.upsert(orgId, Array.from({ length: 5 }, (_, i) => input(`l${i}`)), new Date());
      await until(() => `the five deliveries while the import still runs (received ${receiver.received.length})`, () => receiver.received.length === 5);
      expect(bulk.has(orgId)).toBe(true);
      // One hold, then the batch of five (a hold per delivery would be five).
      expect(holds()).toBeLessThanOrEqual(2);
    } finally {
      end();
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it('counts a delivery not sent (the delivery thread stopped) as no attempt and not against the endpoint, and sends it again shortly', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 10));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    const real = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    let refusals = 2;
    const client = {
      deliver: (r: Parameters<typeof real.deliver>[0]) =>
        refusals-- > 0
          ? Promise.resolve({ delivered: false, statusCode: null, error: 'the delivery thread stopped (exit code 1)', retryAfterMs: null, excerpt: '', bodyBytes: 0, truncated: false, notSent: true as const })
          : real.deliver(r),
      close: () => real.close(),
    };
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50 });
    try {
      dispatcher.start();
      await store.reviews.upsert(orgId, [input('n')], new Date());
      const [endpoint] = await store.webhooks.listByOrg(orgId);
      await until('delivered after two sends that did not happen', async () => (await store.webhooks.deliveries(endpoint!.id, 'delivered', 10)).length === 1);
      const [delivery] = await store.webhooks.deliveries(endpoint!.id, 'delivered', 10);
      expect(delivery!.attempts).toBe(1);
      expect(receiver.received).toHaveLength(1);
      expect((await store.webhooks.get(endpoint!.id))!.failingSince).toBeNull();
    } finally {
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it('stops holding when it is closed: close() does not wait for a bulk import to end', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 8));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    const { bulk, holds } = countedBulk();
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, bulk });
    bulk.begin(orgId);
    dispatcher.start();
    await store.reviews.upsert(orgId, [input('h')], new Date());
    // The worker is holding (the hold lasts 30 s at most).
    await until('the worker holding', () => holds() > 0);
    const started = Date.now();
    await closeAll(dispatcher, client, [receiver], store, dir);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(receiver.received).toHaveLength(0);
  }, 60_000);

  it('has several deliveries in flight to one endpoint: the second arrives while the first is held', async () => {
    const cert = await testCert();
    const held: (() => void)[] = [];
    // Holds every request until two have arrived, then answers them all.
    const receiver = await startReceiver(cert, (_req, res) => {
      held.push(() => res.writeHead(200).end());
      if (held.length >= 2) for (const release of held.splice(0)) release();
    });
    const box = new SecretBox(Buffer.alloc(32, 4));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert, timeoutMs: 60_000 });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, perEndpoint: 4 });
    try {
      dispatcher.start();
      await store.reviews.upsert(orgId, [input('p'), input('q')], new Date());
      const end = Date.now() + 20_000;
      while (receiver.received.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      // One at a time, the first would be held until the client's timeout and the second never sent meanwhile.
      expect(receiver.received).toHaveLength(2);
      const [endpoint] = await store.webhooks.listByOrg(orgId);
      while ((await store.webhooks.deliveries(endpoint!.id, 'delivered', 10)).length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(await store.webhooks.deliveries(endpoint!.id, 'delivered', 10)).toHaveLength(2);
    } finally {
      for (const release of held.splice(0)) release();
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it('frees a slot once the receiver answered: the write of the result does not hold it, and at most 3 per slot are open', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 6));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    // The store's writes of delivery results held until released (a slow disk, taken to the extreme).
    const held: (() => void)[] = [];
    let holding = true;
    const put = store.webhooks.putDelivery.bind(store.webhooks);
    store.webhooks.putDelivery = (d) => (holding ? new Promise<void>((resolve, reject) => held.push(() => put(d).then(resolve, reject))) : put(d));
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 3_600_000, perEndpoint: 1 });
    try {
      dispatcher.start();
      await store.reviews.upsert(orgId, Array.from({ length: 10 }, (_, i) => input(`s${i}`)), new Date());
      // One slot: had it waited for the write, the receiver would have had one delivery and no more.
      await until(() => `three deliveries while their results wait to be written (received ${receiver.received.length}, writes held ${held.length})`, () => receiver.received.length === 3 && held.length === 3);
      await new Promise((r) => setTimeout(r, 300));
      expect({ received: receiver.received.length, held: held.length }).toEqual({ received: 3, held: 3 });
      holding = false;
      for (const release of held.splice(0)) release();
      const [endpoint] = await store.webhooks.listByOrg(orgId);
      await until('all ten delivered and written', async () => (await store.webhooks.deliveries(endpoint!.id, 'delivered', 100)).length === 10);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(10);
      expect(new Set(ids).size).toBe(10);
    } finally {
      holding = false;
      for (const release of held.splice(0)) release();
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it("stops sending soon after a person disables or removes the endpoint mid-batch, never re-enables it, and writes nothing for a removed one", async () => {
    const cert = await testCert();
    // Slow answers (100 ms) and a failure every other request, so the worker's failure clock keeps changing.
    let n = 0;
    const receiver = await startReceiver(cert, (_req, res) => {
      const status = n++ % 2 === 0 ? 500 : 200;
      setTimeout(() => res.writeHead(status).end(), 100);
    });
    const box = new SecretBox(Buffer.alloc(32, 5));
    const { dir, store, orgId, input } = await setUp([receiver.url()], box);
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 3_600_000, perEndpoint: 2 });
    try {
      const [endpoint] = await store.webhooks.listByOrg(orgId);
      dispatcher.start();
      await store.reviews.upsert(orgId, Array.from({ length: 60 }, (_, i) => input(`d${i}`)), new Date());
      await until('a few deliveries', () => receiver.received.length >= 4);
      await store.webhooks.update(endpoint!.id, { state: 'disabled', disabledReason: 'manual' });
      const atDisable = receiver.received.length;
      // What was in flight (2) may still arrive, and what started before the worker read the endpoint again (REREAD_MS).
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.received.length - atDisable).toBeLessThanOrEqual(4);
      expect(receiver.received.length).toBeLessThan(60);
      expect(await store.webhooks.get(endpoint!.id)).toMatchObject({ state: 'disabled', disabledReason: 'manual' });

      // Enabled again, then removed mid-batch: no delivery record of it is left or written afterwards.
      await store.webhooks.update(endpoint!.id, { state: 'enabled', disabledReason: null });
      dispatcher.wake();
      const atEnable = receiver.received.length;
      await until('deliveries again', () => receiver.received.length >= atEnable + 2);
      expect(await store.webhooks.remove(endpoint!.id)).toBe(true);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await store.webhooks.deliveries(endpoint!.id, null, 1000)).toEqual([]);
      expect(await store.webhooks.due(new Date(Date.now() + 86_400_000), 1000, endpoint!.id)).toEqual([]);
    } finally {
      await closeAll(dispatcher, client, [receiver], store, dir);
    }
  }, 60_000);

  it('a hanging endpoint never delays another', async () => {
    const cert = await testCert();
    const hanging = await startReceiver(cert, () => undefined); // takes the request, never answers
    const healthy = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 1));
    const { dir, store, orgId, input } = await setUp([hanging.url(), healthy.url()], box);
    // A long timeout: the hanging endpoint's worker is stuck for the whole test.
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert, timeoutMs: 120_000 });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50 });
    try {
      dispatcher.start();
      await store.reviews.upsert(orgId, [input('a'), input('b'), input('c')], new Date());
      await until('the healthy endpoint', () => healthy.received.length === 3 && hanging.received.length >= 1);
      // The healthy endpoint got all three while the hanging one still holds what it took.
      expect(healthy.received).toHaveLength(3);
      // All three held (several in flight at once): no connection of it is still in its TLS handshake, which closing
      // the receiver would not cut and would wait for.
      await until('the hanging endpoint to hold all three', () => hanging.received.length === 3);
    } finally {
      await hanging.close();
      await closeAll(dispatcher, client, [healthy], store, dir);
    }
  }, 60_000);

  it("keeps a person's Enable (the failure clock cleared) while the worker is busy failing, so the 5 days count afresh", async () => {
    const cert = await testCert();
    const failing = await startReceiver(cert, (_req, res) => void setTimeout(() => res.writeHead(500).end(), 10));
    const box = new SecretBox(Buffer.alloc(32, 8));
    const { dir, store, orgId, input } = await setUp([failing.url()], box);
    const [endpoint] = await store.webhooks.listByOrg(orgId);
    const id = endpoint!.id;
    const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3600 * 1000).toISOString();
    await store.webhooks.update(id, { failingSince: fourDaysAgo });
    // The dispatcher's clock: moved two days on below (the old clock would then be six days old).
    let offset = 0;
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, perEndpoint: 2, now: () => new Date(Date.now() + offset) });
    try {
      dispatcher.start();
      await store.reviews.upsert(orgId, Array.from({ length: 200 }, (_, i) => input(`e${i}`)), new Date());
      await until('failures', () => failing.received.length >= 10);
      // What Enable writes (service.ts): enabled, and the clock cleared, while deliveries keep failing.
      const enabledAt = new Date().toISOString();
      await store.webhooks.update(id, { state: 'enabled', disabledReason: null, failingSince: null });
      await until('the clock started again after the Enable', async () => ((await store.webhooks.get(id))!.failingSince ?? '') >= enabledAt);
      offset = 2 * 24 * 3600 * 1000;
      const seen = failing.received.length;
      await until('failures two days on', () => failing.received.length >= seen + 10);
      expect(await store.webhooks.get(id)).toMatchObject({ state: 'enabled', disabledReason: null });
      expect((await store.webhooks.get(id))!.failingSince! >= enabledAt).toBe(true);
    } finally {
      await closeAll(dispatcher, client, [failing], store, dir);
    }
  }, 60_000);

  it('disables an endpoint whose every delivery failed for 5 days, with the reason, in the audit log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-5days-'));
    const cert = await testCert();
    const failing = await startReceiver(cert, (_req, res) => res.writeHead(500).end());
    const store = await EmbeddedStore.open(dir);
    const box = new SecretBox(Buffer.alloc(32, 2));
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50 });
    try {
      const stamp = new Date().toISOString();
      const orgId = newId('org');
      await store.orgs.create({ id: orgId, name: 'Failing', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      const id = newId('wh');
      const fiveDaysAgo = new Date(Date.now() - 5 * 24 * 3600 * 1000 - 60_000).toISOString();
      await store.webhooks.create({
        id, orgId, url: failing.url(), events: ['review.created'], description: '', state: 'enabled', disabledReason: null, createdAt: stamp, updatedAt: stamp,
        lastDeliveryAt: null, failingSince: fiveDaysAgo, secrets: sealSecrets(box, id, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
      });
      dispatcher.start();
      await store.reviews.upsert(orgId, [{
        platform: 'GOOGLE', externalId: 'f', authorName: 'A', authorAvatar: null, rating: 4, content: 'f', date: stamp, url: null,
        language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [],
      }], new Date());
      const end = Date.now() + 30_000;
      while ((await store.webhooks.get(id))!.state === 'enabled' && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(await store.webhooks.get(id)).toMatchObject({ state: 'disabled', failingSince: fiveDaysAgo, disabledReason: `every delivery failed since ${fiveDaysAgo} (5 days)` });
      // The audit record is written after the state (recordHealth): it shows once written.
      await until('the webhook.disabled audit record', async () => (await store.people.audit.listByOrg(orgId, 10)).some((a) => a.action === 'webhook.disabled'));
      const audit = await store.people.audit.listByOrg(orgId, 10);
      expect(audit.map((a) => [a.action, a.details.reason])).toContainEqual(['webhook.disabled', `every delivery failed since ${fiveDaysAgo} (5 days)`]);
      // The message waits, pending, for the endpoint to be enabled again.
      expect((await store.webhooks.deliveries(id, 'pending', 10)).length).toBe(1);
    } finally {
      await closeAll(dispatcher, client, [failing], store, dir);
    }
  }, 60_000);
});
