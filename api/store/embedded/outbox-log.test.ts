/**
 * The outbox in the embedded store's log: an import's events are written as
 * references to the batch's records and fanned out in the same commit round
 * (store.ts, BatchMessage and the `fan` entry), and after a restart every
 * message's body is byte for byte the text recorded (it is what is signed, on
 * every attempt and replay).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import type { Organization, ReviewInput } from '../types.ts';
import { deliveryId, freshDelivery, type OutboxMessage, type WebhookDelivery } from '../webhook-types.ts';
import { EmbeddedStore } from './store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const AWKWARD = [
  'Plain text',
  'Quotes " and \\ backslashes \\" and a tab\tand lines\nand\r\nmore',
  'Unicode: 日本語, עברית, العربية, emoji 👍🏽, line separators \u2028 \u2029',
  'A lone surrogate \ud800 and its other half \udc00 alone',
  'Control characters \u0000 \u0001 \u001f and </script>',
];

describe('the outbox in the embedded log', () => {
  it("keeps an import's events as references to its records, fanned out in the batch's own write, and gives back every body exactly after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-log-'));
    dirs.push(dir);
    const store = await EmbeddedStore.open(dir);
    const now = new Date().toISOString();
    const org: Organization = { id: newId('org'), name: 'Outbox log', plan: 'growth', rateLimit: null, language: 'en', createdAt: now, updatedAt: now };
    await store.orgs.create(org);
    const endpointId = newId('wh');
    await store.webhooks.create({
      id: endpointId, orgId: org.id, url: 'https://hooks.example/log', events: ['review.created', 'review.updated'], description: '', state: 'enabled',
      disabledReason: null, createdAt: now, updatedAt: now, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
    });
    const input = (i: number, content: string): ReviewInput => ({
      platform: 'GOOGLE', externalId: `x${i}`, authorName: `Author "${i}" ✓`, authorAvatar: null, rating: 1 + (i % 5), content, date: '2026-11-20T10:00:00.000Z',
      url: null, language: 'en', isVerified: false, sentiment: i % 2 === 0 ? 0.25 : null, sentimentLabel: i % 2 === 0 ? 'NEGATIVE' : null, aiSummary: null, aiThemes: [],
    });
    const edited = AWKWARD.map((_, i) => `${AWKWARD[(i + 1) % AWKWARD.length]} (edited)`);
    // Created, then updated with other awkward texts: both kinds of event, two batches.
    await store.reviews.upsert(org.id, AWKWARD.map((text, i) => input(i, text)), new Date());
    await store.reviews.upsert(org.id, edited.map((text, i) => input(i, text)), new Date());
    // Fanned out with the write: a delivery per event is there once the import is answered, nothing is left to fan out.
    expect(await store.webhooks.unfanned(1000)).toEqual([]);
    const deliveries = await store.webhooks.deliveries(endpointId, null, 1000);
    expect(deliveries).toHaveLength(AWKWARD.length * 2);
    const bodies = new Map<string, string>();
    for (const d of deliveries) bodies.set(d.messageId, (await store.webhooks.getMessage(d.messageId))!.body);
    // Each body is the event of its own version of the review, though the store keeps only the latest.
    const events = [...bodies.values()].map((b) => JSON.parse(b) as { type: string; timestamp: string; data: { content: string } });
    expect(events.filter((e) => e.type === 'review.created').map((e) => e.data.content).sort()).toEqual([...AWKWARD].sort());
    expect(events.filter((e) => e.type === 'review.updated').map((e) => e.data.content).sort()).toEqual([...edited].sort());
    await store.close();
    // The events are not written a second time beside their reviews, neither spliced in nor as escaped strings.
    const log = readFileSync(join(dir, 'store.log'), 'utf8');
    expect(log).not.toContain('"event":{');
    expect(log).not.toContain('"body":"{');
    expect(log.match(/"t":"fan",/g)).toHaveLength(2);

    const reopened = await EmbeddedStore.open(dir);
    try {
      expect(await reopened.webhooks.deliveries(endpointId, null, 1000)).toEqual(deliveries);
      for (const [id, body] of bodies) expect((await reopened.webhooks.getMessage(id))?.body).toBe(body);
    } finally {
      await reopened.close();
    }

    // A crash after the second batch's line but before its fan-out's: those messages wait for the dispatcher's sweep, bodies intact.
    const lines = readFileSync(join(dir, 'store.log'), 'utf8').split('\n');
    const fanLine = lines.findLastIndex((l) => l.includes('"t":"fan",'));
    writeFileSync(join(dir, 'store.log'), [...lines.slice(0, fanLine), ...lines.slice(fanLine + 1)].join('\n'));
    const crashed = await EmbeddedStore.open(dir);
    try {
      const waiting = await crashed.webhooks.unfanned(1000);
      expect(waiting.map((m) => m.type)).toEqual(AWKWARD.map(() => 'review.updated'));
      for (const m of waiting) expect(m.body).toBe(bodies.get(m.id));
      expect(await crashed.webhooks.deliveries(endpointId, null, 1000)).toHaveLength(AWKWARD.length);
    } finally {
      await crashed.close();
    }
  });

  it('writes a fan-out of fresh deliveries as one short entry and gives back the same records after a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-log-'));
    dirs.push(dir);
    const store = await EmbeddedStore.open(dir);
    const now = new Date().toISOString();
    const org: Organization = { id: newId('org'), name: 'Fan-out log', plan: 'growth', rateLimit: null, language: 'en', createdAt: now, updatedAt: now };
    await store.orgs.create(org);
    const endpoints = ['a', 'b', 'c'].map((n) => newId(`wh`) + n);
    // Deliveries are kept only for endpoints the store has.
    for (const id of endpoints) {
      await store.webhooks.create({
        id, orgId: org.id, url: `https://hooks.example/${id}`, events: ['webhook.test'], description: '', state: 'enabled',
        disabledReason: null, createdAt: now, updatedAt: now, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
      });
    }
    const messages: OutboxMessage[] = Array.from({ length: 3 }, (_, i) => ({ id: `msg_fan${i}`, orgId: org.id, type: 'webhook.test', body: `{"n":${i}}`, createdAt: now, endpointId: null }));
    for (const m of messages) await store.webhooks.addMessage(m);
    const at = '2026-11-26T10:00:00.000Z';
    // Fresh: compact. One delivery already tried: written in full. Different due times: in full.
    const fresh = endpoints.map((e) => freshDelivery(messages[0]!, e, at));
    const tried: WebhookDelivery[] = endpoints.map((e, i) => ({ ...freshDelivery(messages[1]!, e, at), ...(i === 1 ? { attempts: 1, lastStatusCode: 500 } : {}) }));
    const spread = endpoints.map((e, i) => freshDelivery(messages[2]!, e, i === 0 ? at : '2026-11-26T10:00:05.000Z'));
    await store.webhooks.fanOut(messages[0]!.id, fresh);
    await store.webhooks.fanOut(messages[1]!.id, tried);
    await store.webhooks.fanOut(messages[2]!.id, spread);
    const all = [...fresh, ...tried, ...spread];
    for (const d of all) expect(await store.webhooks.getDelivery(d.id)).toEqual(d);
    await store.close();
    const log = readFileSync(join(dir, 'store.log'), 'utf8');
    expect(log).toContain(`"to":${JSON.stringify(endpoints)},"at":"${at}"`);
    expect(log.match(/"t":"fanned","id":"[^"]+","d":\[/g)).toHaveLength(2);

    const reopened = await EmbeddedStore.open(dir);
    try {
      for (const d of all) expect(await reopened.webhooks.getDelivery(d.id)).toEqual(d);
      expect(await reopened.webhooks.getDelivery(deliveryId(messages[0]!.id, 'wh_none'))).toBeNull();
      expect(await reopened.webhooks.unfanned(10)).toEqual([]);
    } finally {
      await reopened.close();
    }
  });
});
