/**
 * The dispatcher's per-endpoint workers: an endpoint that never answers holds
 * up only its own deliveries; another endpoint of the same organization gets
 * every message meanwhile. Real HTTPS receivers on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

describe('dispatcher', () => {
  it('a hanging endpoint never delays another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-dispatch-'));
    const cert = await testCert();
    const hanging = await startReceiver(cert, () => undefined); // takes the request, never answers
    const healthy = await startReceiver(cert);
    const store = await EmbeddedStore.open(dir);
    const box = new SecretBox(Buffer.alloc(32, 1));
    // A long timeout: the hanging endpoint's worker is stuck for the whole test.
    const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert, timeoutMs: 120_000 });
    const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 50 });
    try {
      const stamp = new Date().toISOString();
      const orgId = newId('org');
      await store.orgs.create({ id: orgId, name: 'Two', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
      for (const url of [hanging.url(), healthy.url()]) {
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
      dispatcher.start();
      await store.reviews.upsert(orgId, [input('a'), input('b'), input('c')], new Date());
      const end = Date.now() + 30_000;
      while ((healthy.received.length < 3 || hanging.received.length < 1) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      // The healthy endpoint got all three while the hanging one still holds its first.
      expect(healthy.received).toHaveLength(3);
      expect(hanging.received).toHaveLength(1);
    } finally {
      await hanging.close();
      await dispatcher.close();
      client.close();
      await healthy.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
