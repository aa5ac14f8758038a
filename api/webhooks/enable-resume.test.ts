/**
 * What the service does to deliveries it leaves unscheduled, and to secrets
 * changed by two people at once (CONTRACT §12), against real HTTPS receivers
 * on loopback and the embedded store:
 * - Enable resumes every message that met a 410, however long the backlog;
 * - a Test cut short by a crash is sent again after a restart;
 * - two rotations at once both answer a secret the endpoint signs with.
 */
import { spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import type { ReviewInput } from '../store/types.ts';
import { createDeliveryClient } from './deliver.ts';
import { Dispatcher, openSecrets, sealSecrets } from './dispatcher.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret, liveSecrets } from './secrets.ts';
import { TEST_LEASE_MS, WebhooksService } from './service.ts';
import { flatHeaders, startReceiver, testCert, type Handler } from './test-receiver.ts';

const allow = parseAllowNetworks('127.0.0.0/8');

/** An embedded store in `dir` with one organization and one endpoint at `url`. */
async function setUp(dir: string, url: string, box: SecretBox): Promise<{ store: EmbeddedStore; orgId: string; id: string }> {
  const store = await EmbeddedStore.open(dir);
  const stamp = new Date().toISOString();
  const orgId = newId('org');
  await store.orgs.create({ id: orgId, name: 'One', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
  const id = newId('wh');
  await store.webhooks.create({
    id, orgId, url, events: ['review.created'], description: '', state: 'enabled', disabledReason: null, createdAt: stamp, updatedAt: stamp,
    lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, id, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
  });
  return { store, orgId, id };
}

const input = (id: string): ReviewInput => ({
  platform: 'GOOGLE', externalId: id, authorName: 'A', authorAvatar: null, rating: 4, content: id, date: '2026-10-01T10:00:00.000Z', url: null,
  language: 'en', isVerified: false, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [],
});

/** Waits for `ok` (checked every 20 ms, 90 s at most: a loaded machine). */
async function until(what: string | (() => string), ok: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 90_000;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('webhooks service: nothing left unscheduled, no secret lost', () => {
  it('resumes on Enable every message that met a 410, however long the backlog behind it (more than a page of 500)', async () => {
    const cert = await testCert();
    let gone = true;
    const handler: Handler = (_req, res) => void res.writeHead(gone ? 410 : 200, { 'content-type': 'text/plain' }).end(gone ? 'gone' : 'ok');
    const receiver = await startReceiver(cert, handler);
    const box = new SecretBox(Buffer.alloc(32, 21));
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-resume-'));
    const { store, orgId, id } = await setUp(dir, receiver.url(), box);
    const client = createDeliveryClient({ allow, ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50 });
    const service = new WebhooksService({ store, box, dispatcher, allow });
    try {
      // 800 events in four imports an hour ago, a minute apart: the oldest are sent (and meet the 410) first.
      const base = Date.now() - 3600_000;
      for (let k = 0; k < 4; k++) await store.reviews.upsert(orgId, Array.from({ length: 200 }, (_, i) => input(`r${k}-${i}`)), new Date(base + k * 60_000));
      dispatcher.start();
      await until('the endpoint disabled by the 410', async () => (await store.webhooks.get(id))!.state === 'disabled');
      // Every answer written: each request the receiver answered left its delivery pending.
      const waiting = async () => (await store.webhooks.deliveries(id, 'pending', 5000)).filter((d) => d.lastStatusCode === 410);
      await until('every 410 written', async () => (await waiting()).length === receiver.received.length);
      const stuck = (await waiting()).map((d) => d.id);
      expect(stuck.length).toBeGreaterThan(0);
      // They are the oldest: none is among the 500 newest pending deliveries.
      const newest = new Set((await store.webhooks.deliveries(id, 'pending', 500)).map((d) => d.id));
      expect(stuck.filter((d) => newest.has(d))).toEqual([]);

      gone = false;
      expect(await service.enable(id)).toEqual({ id, state: 'enabled' });
      const count = async () => ({ delivered: (await store.webhooks.deliveries(id, 'delivered', 5000)).length, pending: (await store.webhooks.deliveries(id, 'pending', 5000)).length });
      let last = { delivered: 0, pending: 0 };
      await until(() => `every event delivered (${JSON.stringify(last)})`, async () => (last = await count()).delivered === 800);
      expect(last).toEqual({ delivered: 800, pending: 0 });
      for (const d of stuck) expect(await store.webhooks.getDelivery(d)).toMatchObject({ status: 'delivered', lastStatusCode: 200, attempts: 2 });
    } finally {
      await dispatcher.close();
      client.close();
      await receiver.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('sends again a message whose 410 is written after a person enabled the endpoint again', async () => {
    const cert = await testCert();
    const held: ServerResponse[] = [];
    let answering = false;
    const handler: Handler = (_req, res) => void (answering ? res.writeHead(200, { 'content-type': 'text/plain' }).end('ok') : held.push(res));
    const receiver = await startReceiver(cert, handler);
    const box = new SecretBox(Buffer.alloc(32, 24));
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-late-410-'));
    const { store, orgId, id } = await setUp(dir, receiver.url(), box);
    const client = createDeliveryClient({ allow, ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, perEndpoint: 2 });
    const service = new WebhooksService({ store, box, dispatcher, allow });
    try {
      await store.reviews.upsert(orgId, [input('a'), input('b')], new Date());
      dispatcher.start();
      await until('both messages held at the receiver', () => held.length === 2);
      held[0]!.writeHead(410, { 'content-type': 'text/plain' }).end('gone');
      await until('the endpoint disabled by the 410', async () => (await store.webhooks.get(id))!.state === 'disabled');
      await service.enable(id);
      answering = true;
      // The second 410 comes in after the Enable: its message must not be left waiting for an Enable already made.
      held[1]!.writeHead(410, { 'content-type': 'text/plain' }).end('gone');
      await until('both delivered', async () => (await store.webhooks.deliveries(id, 'delivered', 10)).length === 2);
      expect(await store.webhooks.deliveries(id, 'pending', 10)).toEqual([]);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(2);
    } finally {
      await dispatcher.close();
      client.close();
      await receiver.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('sends a Test again after a restart when the process died during its attempt (it was never left unscheduled)', async () => {
    const cert = await testCert();
    let hold = true;
    const handler: Handler = (_req, res) => void (hold ? undefined : res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const receiver = await startReceiver(cert, handler);
    const key = Buffer.alloc(32, 22);
    const box = new SecretBox(key);
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-test-crash-'));
    const opened = await setUp(dir, receiver.url(), box);
    const id = opened.id;
    await opened.store.close();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'testing', 'test-child.ts')], {
      env: { ...process.env, DATA_DIR: dir, BOX_KEY: key.toString('hex'), CA: cert.cert, ENDPOINT_ID: id },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let store: EmbeddedStore | null = null;
    let dispatcher: Dispatcher | null = null;
    const client = createDeliveryClient({ allow, ca: cert.cert });
    try {
      // The Test reached the receiver, which holds it: the process dies before any answer is written.
      await until(() => `the Test at the receiver (child: ${output})`, () => receiver.received.length === 1);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const messageId = receiver.received[0]!.headers['webhook-id'];
      hold = false;
      store = await EmbeddedStore.open(dir);
      const [delivery] = await store.webhooks.deliveries(id, null, 10);
      expect(delivery).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 });
      expect(delivery!.nextAttemptAt).not.toBeNull();
      // The restarted process, its clock past the Test's own time to answer: the sweep sends it again, same webhook-id.
      dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50, now: () => new Date(Date.now() + TEST_LEASE_MS + 60_000) });
      dispatcher.start();
      await until('the Test sent again', async () => (await store!.webhooks.getDelivery(delivery!.id))?.status === 'delivered');
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(messageId);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await dispatcher?.close();
      client.close();
      await receiver.close();
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('answers, to two rotations at once, two secrets the endpoint both signs with', async () => {
    const cert = await testCert();
    const receiver = await startReceiver(cert);
    const box = new SecretBox(Buffer.alloc(32, 23));
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-rotate-race-'));
    const { store, id } = await setUp(dir, receiver.url(), box);
    const client = createDeliveryClient({ allow, ca: cert.cert });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent') });
    const service = new WebhooksService({ store, box, dispatcher, allow });
    try {
      const [a, b] = await Promise.all([service.rotateSecret(id), service.rotateSecret(id)]);
      expect(a.secret).not.toBe(b.secret);
      const live = liveSecrets(openSecrets(box, (await store.webhooks.get(id))!), new Date());
      expect(live).toHaveLength(3);
      expect(live).toEqual(expect.arrayContaining([a.secret, b.secret]));
      // A message sent now verifies with either secret shown.
      expect(await service.test(id)).toMatchObject({ status: 'delivered', statusCode: 200 });
      const got = receiver.received.at(-1)!;
      for (const secret of [a.secret, b.secret]) expect(new Webhook(secret).verify(got.body, flatHeaders(got.headers))).toMatchObject({ type: 'webhook.test' });
    } finally {
      await dispatcher.close();
      client.close();
      await receiver.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
