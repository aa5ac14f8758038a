/**
 * A large backlog (issue 34 item 2): what the dispatcher holds of it at a
 * time is bounded whatever the counts. An organization with 30 endpoints
 * (more than WEBHOOK_MAX_ENDPOINTS allows now, as one made before the cap
 * may have) and 1,000 events waiting: fan-out makes their 30,000 delivery
 * records in rounds of at most FAN_OUT_DELIVERIES, and a worker reads what
 * is due 100 at a time (in flight, at most 16 per endpoint:
 * dispatcher.test.ts). The store calls are counted; a real HTTPS receiver
 * on loopback answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { SecretBox } from '../secrets/secrets.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { newId } from '../store/ids.ts';
import { createDeliveryClient } from './deliver.ts';
import { Dispatcher, FAN_OUT_DELIVERIES, sealSecrets } from './dispatcher.ts';
import { newMessageId } from './events.ts';
import { parseAllowNetworks } from './networks.ts';
import { generateSecret } from './secrets.ts';
import { startReceiver, testCert } from './test-receiver.ts';

const ENDPOINTS = 30;
const MESSAGES = 1000;

it(`holds at most ${FAN_OUT_DELIVERIES} new deliveries per fan-out round and 100 due per read, with ${ENDPOINTS * MESSAGES} pending`, async () => {
  const cert = await testCert();
  const receiver = await startReceiver(cert);
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-backlog-'));
  const store = await EmbeddedStore.open(dir);
  const box = new SecretBox(Buffer.alloc(32, 5));
  const client = createDeliveryClient({ allow: parseAllowNetworks('127.0.0.0/8'), ca: cert.cert });
  // Long polls: the test drives the sweep itself, then lets the workers run.
  const dispatcher = new Dispatcher({ store, box, client, logger: createLogger('silent'), pollMs: 3_600_000 });
  try {
    const stamp = new Date().toISOString();
    const orgId = newId('org');
    await store.orgs.create({ id: orgId, name: 'Many endpoints', plan: 'growth', rateLimit: null, language: 'en', createdAt: stamp, updatedAt: stamp });
    const ids: string[] = [];
    for (let n = 0; n < ENDPOINTS; n++) {
      const id = newId('wh');
      ids.push(id);
      await store.webhooks.create({
        id, orgId, url: receiver.url(), events: ['review.created'], description: '', state: 'enabled', disabledReason: null, createdAt: stamp, updatedAt: stamp,
        lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(box, id, [{ secret: generateSecret(), createdAt: new Date(), expiresAt: null }]),
      });
    }
    await Promise.all(
      Array.from({ length: MESSAGES }, () => store.webhooks.addMessage({ id: newMessageId(), orgId, type: 'review.created', body: '{"type":"review.created"}', createdAt: stamp, endpointId: null })),
    );

    // Counted: the delivery records handed to the store at once, and the size of every answer of what is due.
    let fanning = 0;
    let mostFanning = 0;
    let made = 0;
    const dueSizes: number[] = [];
    const fanOut = store.webhooks.fanOut.bind(store.webhooks);
    const due = store.webhooks.due.bind(store.webhooks);
    store.webhooks.fanOut = async (messageId, deliveries) => {
      fanning += deliveries.length;
      made += deliveries.length;
      mostFanning = Math.max(mostFanning, fanning);
      try {
        await fanOut(messageId, deliveries);
      } finally {
        fanning -= deliveries.length;
      }
    };
    store.webhooks.due = async (...args) => {
      const answer = await due(...args);
      dueSizes.push(answer.length);
      return answer;
    };

    // The sweep alone (no worker runs before start): the whole outbox fanned out.
    await dispatcher.pass();
    expect(await store.webhooks.unfanned(1)).toEqual([]);
    expect(made).toBe(ENDPOINTS * MESSAGES);
    expect(mostFanning).toBeGreaterThan(0);
    expect(mostFanning).toBeLessThanOrEqual(FAN_OUT_DELIVERIES);

    // One endpoint's worker through its 1,000 (the others disabled): what is due is read 100 at a time at most.
    for (const id of ids.slice(1)) await store.webhooks.update(id, { state: 'disabled', disabledReason: 'manual' });
    dueSizes.length = 0;
    dispatcher.start();
    const end = Date.now() + 60_000;
    while ((await store.webhooks.deliveries(ids[0]!, 'delivered', MESSAGES)).length < MESSAGES) {
      if (Date.now() > end) throw new Error(`timed out: ${receiver.received.length} of ${MESSAGES} received`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(dueSizes.length).toBeGreaterThan(0);
    expect(Math.max(...dueSizes)).toBeLessThanOrEqual(100);
  } finally {
    await dispatcher.close();
    client.close();
    await receiver.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
