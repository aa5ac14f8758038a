/**
 * Reviews from the review page are events like any other (CONTRACT §13, §12),
 * on both stores: nothing while a review waits for its email step, then
 * `review.created` at publication (after the email step, or when a person
 * publishes a held review), `review.updated` for the reviewer's edit through
 * the private link and for a later review from the same email that replaces
 * the earlier one, `review.removed` for their delete; each reaches a
 * real HTTPS receiver (verified with standardwebhooks) and none carries the
 * reviewer's email.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { Store } from '../store/types.ts';
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import { storeSubjects } from '../sources/testing/subjects.ts';
import { createDeliveryClient, type DeliveryClient } from '../webhooks/deliver.ts';
import { Dispatcher, sealSecrets } from '../webhooks/dispatcher.ts';
import { parseAllowNetworks } from '../webhooks/networks.ts';
import { generateSecret } from '../webhooks/secrets.ts';
import { flatHeaders, startReceiver, testCert, type Receiver } from '../webhooks/test-receiver.ts';
import { CollectService, type MailWork } from './service.ts';

const logger = createLogger('silent');
const box = new SecretBox(Buffer.alloc(32, 4));
const EMAIL = 'private.reviewer@mail.example';

for (const subject of storeSubjects('collect-events')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`review page events: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let receiver: Receiver;
    let client: DeliveryClient;
    let dispatcher: Dispatcher;

    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
      const cert = await testCert();
      receiver = await startReceiver(cert);
      client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
      dispatcher = new Dispatcher({ store, box, client, logger, pollMs: 50 });
      dispatcher.start();
    }, 60_000);
    afterAll(async () => {
      await dispatcher.close();
      client.close();
      await receiver.close();
      await cleanup();
    });

    it('sends review.created at publication, review.updated for an edit and review.removed for a delete, never the email', async () => {
      const stamp = new Date().toISOString();
      const orgId = newId('org');
      await store.orgs.create({ id: orgId, name: 'Collecting', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      const secret = generateSecret();
      const endpointId = newId('wh');
      await store.webhooks.create({
        id: endpointId, orgId, url: receiver.url(), events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret, createdAt: new Date(), expiresAt: null }]),
      });
      const mails: { confirmUrl: string; manageUrl: string }[] = [];
      let clock = Date.now();
      const service = new CollectService({
        store, secretsKey: Buffer.alloc(32, 8), publicUrl: 'https://reviews.example', logger, now: () => new Date(clock++),
        mailer: { send: async (mail) => void mails.push({ confirmUrl: mail.confirmUrl, manageUrl: mail.manageUrl }) },
      });
      const queue = new InProcessKeyedQueue<MailWork>(logger);
      await service.start(queue);
      const wh = new Webhook(secret);
      const events = () => receiver.received.map((r) => wh.verify(r.body, flatHeaders(r.headers)) as { type: string; data: { id: string; content: string; platform: string } });
      const until = async (n: number) => {
        const end = Date.now() + 30_000;
        while (receiver.received.length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        expect(receiver.received.length).toBe(n);
      };

      const { collectId } = await service.link(orgId);
      const page = (await service.page(collectId, null))!;
      const token = service.formToken(page);
      clock += 3_000;
      expect((await service.submit(page, token, { rating: '1', content: 'Arrived broken.', authorName: 'Rui', email: EMAIL, consent: true }, 'en')).ok).toBe(true);
      const end = Date.now() + 10_000;
      while (mails.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(mails).toHaveLength(1);
      // Waiting for its email step: no event yet.
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(0);

      expect(await service.confirm(mails[0]!.confirmUrl.split('/r/confirm/')[1]!)).toBe('published');
      await until(1);
      const manage = mails[0]!.manageUrl.split('/r/review/')[1]!;
      expect(await service.edit(manage, { rating: '2', content: 'Arrived broken; replaced quickly.', authorName: 'Rui' })).toEqual({ ok: true });
      await until(2);
      expect(await service.delete(manage)).toBe(true);
      await until(3);

      const got = events();
      expect(got.map((e) => e.type)).toEqual(['review.created', 'review.updated', 'review.removed']);
      expect(new Set(got.map((e) => e.data.id)).size).toBe(1);
      expect(got[0]!.data).toMatchObject({ platform: 'DIRECT', content: 'Arrived broken.', isVerified: false });
      expect(got[1]!.data.content).toBe('Arrived broken; replaced quickly.');
      for (const r of receiver.received) expect(r.body.toString()).not.toContain(EMAIL);
      await queue.close();
    }, 90_000);

    it('sends review.created when a person publishes a held review, and review.updated when a later review from the same email replaces it', async () => {
      const stamp = new Date().toISOString();
      const orgId = newId('org');
      await store.orgs.create({ id: orgId, name: 'Moderating', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      const secret = generateSecret();
      const endpointId = newId('wh');
      await store.webhooks.create({
        id: endpointId, orgId, url: receiver.url(), events: ['review.created', 'review.updated', 'review.removed'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, endpointId, [{ secret, createdAt: new Date(), expiresAt: null }]),
      });
      const mails: { to: string; confirmUrl: string }[] = [];
      let clock = Date.now();
      const service = new CollectService({
        store, secretsKey: Buffer.alloc(32, 9), publicUrl: 'https://reviews.example', logger, now: () => new Date(clock++),
        mailer: { send: async (mail) => void mails.push({ to: mail.to, confirmUrl: mail.confirmUrl }) },
      });
      const queue = new InProcessKeyedQueue<MailWork>(logger);
      await service.start(queue);
      const actor = { userId: null, email: 'moderator@shop.example' } as const;
      const base = receiver.received.length;
      const mine = () => receiver.received.slice(base);
      const wh = new Webhook(secret);
      const events = () => mine().map((r) => wh.verify(r.body, flatHeaders(r.headers)) as { type: string; data: { id: string; content: string; rating: number; platform: string } });
      const until = async (n: number) => {
        const end = Date.now() + 30_000;
        while (mine().length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        expect(mine().length).toBe(n);
      };
      const write = async (rating: string, content: string): Promise<string> => {
        const page = (await service.page((await service.link(orgId)).collectId, null))!;
        const token = service.formToken(page);
        clock += 3_000;
        const sent = mails.length;
        expect((await service.submit(page, token, { rating, content, authorName: 'Lou', email: EMAIL, consent: true }, 'en')).ok).toBe(true);
        const end = Date.now() + 10_000;
        while (mails.length === sent && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
        expect(mails).toHaveLength(sent + 1);
        return mails[sent]!.confirmUrl.split('/r/confirm/')[1]!;
      };

      // Held by the setting: confirmed, still no event until a person publishes it.
      await service.updateSettings(orgId, actor, { moderation: 'hold' });
      expect(await service.confirm(await write('2', 'Held first, then published.'))).toBe('held');
      await new Promise((r) => setTimeout(r, 300));
      expect(mine()).toHaveLength(0);
      const [held] = await service.pending(orgId);
      expect(held).toMatchObject({ content: 'Held first, then published.', reason: 'moderation' });
      expect(await service.publishPending(orgId, held!.id, actor)).toEqual({ id: held!.id, status: 'published' });
      await until(1);

      // A later review from the same address, once confirmed, replaces it: the same review, updated.
      await service.updateSettings(orgId, actor, { moderation: 'publish' });
      expect(await service.confirm(await write('4', 'Replaced by a second look.'))).toBe('published');
      await until(2);
      await new Promise((r) => setTimeout(r, 300));
      expect(mine()).toHaveLength(2);

      const got = events();
      expect(got.map((e) => e.type)).toEqual(['review.created', 'review.updated']);
      expect(got[0]!.data).toMatchObject({ platform: 'DIRECT', rating: 2, content: 'Held first, then published.', isVerified: false });
      expect(got[1]!.data).toMatchObject({ id: got[0]!.data.id, platform: 'DIRECT', rating: 4, content: 'Replaced by a second look.', isVerified: false });
      const listed = await store.reviews.list({ orgId, platforms: ['DIRECT'], limit: 10, offset: 0 });
      expect(listed.items.map((r) => [r.id, r.content])).toEqual([[got[0]!.data.id, 'Replaced by a second look.']]);
      for (const r of mine()) expect(r.body.toString()).not.toContain(EMAIL);
      await queue.close();
    }, 90_000);
  });
}
