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
import { Queue } from 'bullmq';
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
    return { store, ...(await addOrg(store, endpointUrls)) };
  }

  /** An organization with one endpoint per URL, subscribed to review.created. */
  async function addOrg(store: EmbeddedStore, endpointUrls: string[]) {
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
    return { orgId, stamp, endpoints };
  }

  /** An "instance": its own delivery client, queue connections and dispatcher, on the shared Redis and store. */
  function instance(
    store: EmbeddedStore, cert: TestCert, prefix: string, timeoutMs?: number, tuning: { concurrency?: number; turnMs?: number; perEndpoint?: number } = {},
  ): { dispatcher: Dispatcher; client: DeliveryClient } {
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert, ...(timeoutMs && { timeoutMs }) });
    const queue = new BullKeyedQueue<DispatchWork>({ redisUrl: inject('redisUrl'), keyPrefix: prefix, name: 'webhook-dispatch', logger, concurrency: tuning.concurrency });
    const dispatcher = new Dispatcher({ store, box, client, logger, pollMs: 50, queue, turnMs: tuning.turnMs, perEndpoint: tuning.perEndpoint });
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

  it('slow endpoints with backlogs never take every slot: another organization still gets its event', async () => {
    const cert = await testCert();
    // What happened, in order: the slow receivers take requests and hold their answers until released.
    const events: string[] = [];
    let released = false;
    const held: ServerResponse[] = [];
    const holding = new Set<string>();
    const release = () => {
      if (released) return;
      released = true;
      events.push('released');
      for (const res of held) res.writeHead(200).end('ok');
    };
    const slow = await startReceiver(cert, (req, res) => {
      if (released) return void res.writeHead(200).end('ok');
      held.push(res);
      holding.add(req.url ?? '');
    });
    const fast = await startReceiver(cert, (_req, res) => {
      events.push('fast');
      res.writeHead(200).end('ok');
    });
    cleanups.push(async () => {
      await slow.close();
      await fast.close();
    });
    // Two organizations with 20 and 13 slow endpoints (33: more than an instance's 32 slots), three events waiting for each;
    // a third organization with one endpoint that answers at once.
    const { store, orgId: a, stamp } = await setUp(Array.from({ length: 20 }, (_, i) => `${slow.url()}/a${i}`));
    const { orgId: b } = await addOrg(store, Array.from({ length: 13 }, (_, i) => `${slow.url()}/b${i}`));
    const { orgId: c } = await addOrg(store, [fast.url()]);
    for (const org of [a, b]) await store.reviews.upsert(org, ['x', 'y', 'z'].map((id) => input(id, stamp)), new Date());
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    // A long timeout: nothing held ends before the test releases it.
    const instanceA = instance(store, cert, prefix, 120_000);
    cleanups.push(async () => release()); // runs first: the dispatcher can close
    instanceA.dispatcher.start();
    // At least 8 endpoints of each slow organization hold their requests (each endpoint's worker waits for its answers).
    await until('the slow endpoints to hold their requests', () => holding.size >= 16);
    await store.reviews.upsert(c, [input('c', stamp)], new Date());
    await until("organization C's event", () => events.includes('fast'));
    expect(released).toBe(false);
    release();
    expect(events).toEqual(['fast', 'released']);
    // The held ones answered: every slow endpoint's backlog goes out, its slot given back and taken again in turns.
    await until('every slow delivery', () => slow.received.length === 33 * 3);
    expect(fast.received).toHaveLength(1);
  }, 90_000);

  it('an endpoint with a backlog gives its slot back in turns: the only slot serves another endpoint meanwhile', async () => {
    const cert = await testCert();
    // A slow receiver: each answer a tenth of a second later, one request at a time; thirty events waiting for it.
    const events: string[] = [];
    const slow = await startReceiver(cert, (_req, res) => {
      events.push('slow');
      setTimeout(() => res.writeHead(200).end('ok'), 100);
    });
    const fast = await startReceiver(cert, (_req, res) => {
      events.push('fast');
      res.writeHead(200).end('ok');
    });
    cleanups.push(async () => {
      await slow.close();
      await fast.close();
    });
    const { store, orgId: a, stamp } = await setUp([slow.url()]);
    const { orgId: c } = await addOrg(store, [fast.url()]);
    const backlog = Array.from({ length: 30 }, (_, i) => `s${i}`);
    await store.reviews.upsert(a, backlog.map((id) => input(id, stamp)), new Date());
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    // One slot for endpoint workers, and turns of 50 ms of starts.
    instance(store, cert, prefix, undefined, { concurrency: 1, turnMs: 50, perEndpoint: 1 }).dispatcher.start();
    await until('the slow endpoint to get its first request', () => events.includes('slow'));
    await store.reviews.upsert(c, [input('c', stamp)], new Date());
    await until("the other organization's event", () => events.includes('fast'));
    // It went out while the slow endpoint's backlog was still waiting, not after it.
    expect(events.filter((e) => e === 'slow').length).toBeLessThan(backlog.length);
    await until('the slow backlog', () => slow.received.length === backlog.length);
    expect(events.indexOf('fast')).toBeLessThan(events.lastIndexOf('slow'));
  }, 90_000);

  it('the sweep never waits behind endpoint workers: with every slot held, it still runs', async () => {
    const cert = await testCert();
    const held: ServerResponse[] = [];
    const hanging = await startReceiver(cert, (_req, res) => void held.push(res)); // holds its answers until released
    const other = await startReceiver(cert);
    cleanups.push(async () => {
      await hanging.close();
      await other.close();
    });
    const { store, orgId: a, stamp } = await setUp([hanging.url()]);
    const { orgId: c, endpoints } = await addOrg(store, [other.url()]);
    await store.reviews.upsert(a, [input('a', stamp)], new Date());
    const prefix = `t${Math.random().toString(36).slice(2, 10)}:`;
    // One slot for endpoint workers: the hanging endpoint's worker holds it until its answer comes.
    instance(store, cert, prefix, 120_000, { concurrency: 1 }).dispatcher.start();
    cleanups.push(async () => void held.forEach((res) => res.writeHead(200).end('ok'))); // runs first: the dispatcher can close
    await until('the hanging endpoint to hold its request', () => held.length === 1);
    await store.reviews.upsert(c, [input('c', stamp)], new Date());
    // The sweep ran meanwhile: it asked for the other organization's endpoint worker, which waits for a slot.
    const queue = new Queue('webhook-dispatch', { connection: { url: inject('redisUrl') }, prefix: `${prefix}bull` });
    cleanups.push(() => queue.close());
    await until('a sweep to ask for the other endpoint', async () => (await queue.getJob(`endpoint-${endpoints[0]!.id}`)) !== undefined);
    expect(held).toHaveLength(1);
  }, 90_000);
});
