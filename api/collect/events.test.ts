/**
 * Reviews from the review page are events like any other (CONTRACT §13, §12),
 * on both stores: nothing while a review waits for its email step, then
 * `review.created` at publication, `review.updated` for the reviewer's edit
 * through the private link, `review.removed` for their delete; each reaches a
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
  });
}
