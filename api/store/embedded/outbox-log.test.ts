/**
 * The outbox in the embedded store's log: an import's events are written with
 * their event spliced in as JSON (store.ts, LoggedMessage), and after a restart
 * every message's body is byte for byte the text recorded (it is what is
 * signed, on every attempt and replay).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  it('gives back every message body exactly after a restart, whichever way the batch was written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-log-'));
    dirs.push(dir);
    const store = await EmbeddedStore.open(dir);
    const now = new Date().toISOString();
    const org: Organization = { id: newId('org'), name: 'Outbox log', plan: 'growth', rateLimit: null, language: 'en', createdAt: now, updatedAt: now };
    await store.orgs.create(org);
    await store.webhooks.create({
      id: newId('wh'), orgId: org.id, url: 'https://hooks.example/log', events: ['review.created', 'review.updated'], description: '', state: 'enabled',
      disabledReason: null, createdAt: now, updatedAt: now, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
    });
    const input = (i: number, content: string): ReviewInput => ({
      platform: 'GOOGLE', externalId: `x${i}`, authorName: `Author "${i}" ✓`, authorAvatar: null, rating: 1 + (i % 5), content, date: '2026-11-20T10:00:00.000Z',
      url: null, language: 'en', isVerified: false, sentiment: i % 2 === 0 ? 0.25 : null, sentimentLabel: i % 2 === 0 ? 'NEGATIVE' : null, aiSummary: null, aiThemes: [],
    });
    // Created, then updated with other awkward texts: both kinds of event, several batches.
    await store.reviews.upsert(org.id, AWKWARD.map((text, i) => input(i, text)), new Date());
    await store.reviews.upsert(org.id, AWKWARD.map((text, i) => input(i, `${AWKWARD[(i + 1) % AWKWARD.length]} (edited)`)), new Date());
    const before: OutboxMessage[] = await store.webhooks.unfanned(1000);
    expect(before).toHaveLength(AWKWARD.length * 2);
    for (const m of before) expect(JSON.parse(m.body)).toMatchObject({ type: m.type, data: expect.any(Object) });
    await store.close();
    // The import's batches wrote their events spliced in, not as escaped strings.
    const log = readFileSync(join(dir, 'store.log'), 'utf8');
    expect(log.match(/"event":\{"type":"review\.(created|updated)"/g)).toHaveLength(AWKWARD.length * 2);
    expect(log).not.toContain('"body":"{');

    const reopened = await EmbeddedStore.open(dir);
    try {
      const after = await reopened.webhooks.unfanned(1000);
      expect(after).toEqual(before);
      for (const m of before) expect((await reopened.webhooks.getMessage(m.id))?.body).toBe(m.body);
    } finally {
      await reopened.close();
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
