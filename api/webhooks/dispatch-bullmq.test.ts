/**
 * Deliveries on BullMQ (REDIS_URL): two dispatchers (two instances) on one
 * real Redis and one store deliver each (event, endpoint) once; one stopped
 * mid-way leaves the rest to the other, nothing sent twice; a hanging
 * endpoint holds up only itself. Real HTTPS receivers on loopback, verified
 * with standardwebhooks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { BullKeyedQueue } from '../jobs/keyed-bullmq.ts';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import type { ReviewInput } from '../store/types.ts';
import { createDeliveryClient, type DeliveryClient } from './deliver.ts';
import { Dispatcher, sealSecrets, type DispatchWork } from './dispatcher.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret } from './secrets.ts';
import { flatHeaders, startReceiver, testCert, type Receiver, type TestCert } from './test-receiver.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 7));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const input = (id: string, stamp: string): ReviewInput => ({
  platform: 'GOOGLE', externalId: id, authorName: 'A', authorAvatar: null, rating: 4, content: id, date: stamp, url: null,
  language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [],
});

describe('webhook deliveries on BullMQ', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    cleanups.length = 0;
  });

  async function setUp(endpointUrls: string[]) {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-bull-'));
    const store = await EmbeddedStore.open(dir);
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const stamp = new Date().toISOString();
    const orgId = newId('org');
    await store.orgs.create({ id: orgId, name: 'Bull', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
    const endpoints: { id: string; secret: string }[] = [];
    for (const url of endpointUrls) {
      const id = newId('wh');
      const secret = generateSecret();
      await store.webhooks.create({
        id, orgId, url, events: ['review.created'], description: '', state: 'enabled', disabledReason: null, createdAt: stamp, updatedAt: stamp,
        lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, id, [{ secret, createdAt: new Date(), expiresAt: null }]),
      });
      endpoints.push({ id, secret });
    }
    return { store, orgId, stamp, endpoints };
  }

  /** An "instance": its own delivery client, queue connections and dispatcher, on the shared Redis and store. */
  function instance(store: EmbeddedStore, cert: TestCert, prefix: string, timeoutMs?: number): { dispatcher: Dispatcher; client: DeliveryClient } {
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert, ...(timeoutMs && { timeoutMs }) });
    const queue = new BullKeyedQueue<DispatchWork>({ redisUrl: inject('redisUrl'), keyPrefix: prefix, name: 'webhook-dispatch', logger });
    const dispatcher = new Dispatcher({ store, box, client, logger, pollMs: 50, queue });
    cleanups.push(async () => {
      await dispatcher.close();
      client.close();
    });
    return { dispatcher, client };
  }

  /** Every request verified with the endpoint's secret; answers the webhook-ids received, in order. */
  function verifiedIds(receiver: Receiver, secret: string): string[] {
    const hook = new Webhook(secret);
    return receiver.received.map((r) => {
      hook.verify(r.body, flatHeaders(r.headers));
      return r.headers['webhook-id'] as string;
    });
  }

  it('two instances deliver each event to each endpoint once', async () => {
    const cert = await testCert();
    const receivers = [await startReceiver(cert), await startReceiver(cert), await startReceiver(cert)];
    cleanups.push(async () => void (await Promise.all(receivers.map((r) => r.close()))));
    const { store, orgId, stamp, endpoints } = await setUp(receivers.map((r) => r.url()));
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    const a = instance(store, cert, prefix);
    const b = instance(store, cert, prefix);
    a.dispatcher.start();
    b.dispatcher.start();
    const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
    for (let i = 0; i < ids.length; i += 5) await store.reviews.upsert(orgId, ids.slice(i, i + 5).map((id) => input(id, stamp)), new Date());
    await until('every delivery', async () => {
      for (const e of endpoints) if ((await store.webhooks.deliveries(e.id, 'delivered', 100)).length < ids.length) return false;
      return true;
    });
    // Anything sent twice would be in flight now: closing waits for it.
    await a.dispatcher.close();
    await b.dispatcher.close();
    receivers.forEach((r, i) => {
      const got = verifiedIds(r, endpoints[i]!.secret);
      expect(got).toHaveLength(ids.length);
      expect(new Set(got).size).toBe(ids.length);
    });
  }, 60_000);

  it('one instance stopped mid-way: the other delivers the rest, nothing twice', async () => {
    const cert = await testCert();
    // The first request is held until the test lets it go; every later one is answered at once.
    let held: ServerResponse | null = null;
    const receiver = await startReceiver(cert, (_req, res) => {
      if (held === null && receiver.received.length === 1) held = res;
      else res.writeHead(200).end('ok');
    });
    cleanups.push(() => receiver.close());
    const { store, orgId, stamp, endpoints } = await setUp([receiver.url()]);
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    const a = instance(store, cert, prefix);
    a.dispatcher.start();
    const ids = Array.from({ length: 10 }, (_, i) => `s${i}`);
    await store.reviews.upsert(orgId, ids.map((id) => input(id, stamp)), new Date());
    await until('the first request', () => held !== null);
    // Stopped while its attempts are in flight (several at once per endpoint): they end and are recorded, nothing more is sent.
    const stopping = a.dispatcher.close();
    (held as ServerResponse | null)!.writeHead(200).end('ok');
    await stopping;
    const sent = receiver.received.length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect((await store.webhooks.deliveries(endpoints[0]!.id, 'delivered', 100)).length).toBe(sent);

    const b = instance(store, cert, prefix);
    b.dispatcher.start();
    await until('the rest', async () => (await store.webhooks.deliveries(endpoints[0]!.id, 'delivered', 100)).length === ids.length);
    await b.dispatcher.close();
    const got = verifiedIds(receiver, endpoints[0]!.secret);
    expect(got).toHaveLength(ids.length);
    expect(new Set(got).size).toBe(ids.length);
  }, 60_000);

  it('a hanging endpoint never delays another', async () => {
    const cert = await testCert();
    const hanging = await startReceiver(cert, () => undefined); // takes the request, never answers
    const healthy = await startReceiver(cert);
    cleanups.push(async () => {
      await hanging.close();
      await healthy.close();
    });
    const { store, orgId, stamp } = await setUp([hanging.url(), healthy.url()]);
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    // A long timeout: the hanging endpoint's job is stuck for the whole test.
    const a = instance(store, cert, prefix, 120_000);
    a.dispatcher.start();
    await store.reviews.upsert(orgId, ['a', 'b', 'c'].map((id) => input(id, stamp)), new Date());
    await until('the healthy endpoint', () => healthy.received.length === 3 && hanging.received.length >= 1);
    expect(healthy.received).toHaveLength(3);
    // All three are held by the hanging one (several in flight per endpoint): its connections are all open, none still
    // in its TLS handshake, which closing the receiver would not cut and would wait for.
    await until('the hanging endpoint to hold all three', () => hanging.received.length === 3);
    await hanging.close(); // lets the stuck attempts end, so the dispatcher can close
  }, 60_000);
});
