/**
 * Pruning (CONTRACT §12 leaves retention to us: 30 days, docs/webhooks.md) on
 * both stores, with an injected clock: finished deliveries older than the
 * retention go, and their messages once no delivery refers to them; pending
 * deliveries and their messages, recent ones, and messages not fanned out yet
 * stay. Done in batches of the size asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { Store } from '../store/types.ts';
import { deliveryId, type DeliveryStatus, type WebhookDelivery } from '../store/webhook-types.ts';
import { storeSubjects } from '../sources/testing/subjects.ts';
import { createDeliveryClient } from './deliver.ts';
import { Dispatcher, RETENTION_DAYS } from './dispatcher.ts';
import { newMessageId } from './events.ts';
import { parseAllowNetworks } from './networks.ts';

const DAY = 24 * 3600 * 1000;
const NOW = new Date('2026-06-01T12:00:00.000Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

for (const subject of storeSubjects('webhook-prune')) {
  const suite = subject.target && !subject.target.url ? describe.skip : describe;
  suite(`webhook pruning: ${subject.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await subject.open());
    }, 60_000);
    afterAll(async () => cleanup());

    it(`forgets finished deliveries older than ${RETENTION_DAYS} days and their messages, in batches, and keeps everything else`, async () => {
      const orgId = newId('org');
      const stamp = ago(60);
      await store.orgs.create({ id: orgId, name: 'Pruned', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      const endpointId = newId('wh');
      await store.webhooks.create({
        id: endpointId, orgId, url: 'https://hooks.example.test/', events: ['review.created'], description: '', state: 'enabled', disabledReason: null,
        createdAt: stamp, updatedAt: stamp, lastDeliveryAt: null, failingSince: null, secrets: 'sealed',
      });
      /** A message recorded `createdDays` ago; with a delivery in `status` last attempted `attemptDays` ago, or fanned out to nobody, or not fanned out. */
      const message = async (createdDays: number, delivery: { status: DeliveryStatus; attemptDays: number | null } | 'none' | 'unfanned'): Promise<string> => {
        const id = newMessageId();
        await store.webhooks.addMessage({ id, orgId, type: 'review.created', body: '{}', createdAt: ago(createdDays), endpointId: null });
        if (delivery === 'unfanned') return id;
        if (delivery === 'none') {
          await store.webhooks.fanOut(id, []);
          return id;
        }
        const d: WebhookDelivery = {
          id: deliveryId(id, endpointId), messageId: id, endpointId, orgId, type: 'review.created', status: 'pending', attempts: 0, lastStatusCode: null,
          lastError: null, lastAttemptAt: null, nextAttemptAt: null, createdAt: ago(createdDays),
        };
        await store.webhooks.fanOut(id, [d]);
        await store.webhooks.putDelivery({ ...d, status: delivery.status, attempts: delivery.attemptDays === null ? 0 : 1, lastAttemptAt: delivery.attemptDays === null ? null : ago(delivery.attemptDays) });
        return id;
      };
      const goes = [
        ...(await Promise.all(Array.from({ length: 7 }, () => message(40, { status: 'delivered', attemptDays: 40 })))),
        await message(40, { status: 'failed', attemptDays: 31 }),
        await message(45, 'none'),
      ];
      const stays = [
        await message(40, { status: 'pending', attemptDays: 39 }), // its endpoint was disabled: resumes when enabled again
        await message(50, { status: 'delivered', attemptDays: 2 }), // replayed lately
        await message(3, { status: 'delivered', attemptDays: 3 }),
        await message(3, { status: 'failed', attemptDays: 1 }),
        await message(40, 'unfanned'),
      ];

      const perCall: number[] = [];
      const counted: Store = { ...store, webhooks: { ...store.webhooks, prune: async (before, limit) => {
        const n = await store.webhooks.prune(before, limit);
        perCall.push(n);
        return n;
      } } };
      const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8') });
      const dispatcher = new Dispatcher({ store: counted, box: new SecretBox(Buffer.alloc(32, 9)), client, logger: createLogger('silent'), now: () => NOW, pruneBatch: 2 });
      try {
        expect(await dispatcher.prune()).toBe(8 + 9); // 8 deliveries, 9 messages
      } finally {
        client.close();
      }
      // Batches: never more than 2 deliveries and 2 messages per call, and a last call that found nothing.
      expect(Math.max(...perCall)).toBeLessThanOrEqual(4);
      expect(perCall.length).toBeGreaterThan(4);
      expect(perCall.at(-1)).toBe(0);
      for (const id of goes) {
        expect(await store.webhooks.getMessage(id)).toBeNull();
        expect(await store.webhooks.getDelivery(deliveryId(id, endpointId))).toBeNull();
      }
      for (const id of stays) expect(await store.webhooks.getMessage(id)).not.toBeNull();
      expect((await store.webhooks.deliveries(endpointId, null, 100)).map((d) => d.messageId).sort()).toEqual(stays.slice(0, 4).sort());
      expect((await store.webhooks.unfanned(100)).map((m) => m.id)).toContain(stays[4]);
      // Pruning again finds nothing.
      expect(await store.webhooks.prune(new Date(NOW.getTime() - RETENTION_DAYS * DAY), 100)).toBe(0);
    });
  });
}
