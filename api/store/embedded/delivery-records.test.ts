/**
 * The embedded store's delivery records (delivery-records.ts): an endpoint's
 * delivery log reads that endpoint's records only, whatever another
 * organization holds, `prune` reads the oldest finished deliveries only,
 * however many are pending, and the compact records read back, after a
 * restart too, exactly as they were written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../ids.ts';
import { freshDelivery, type OutboxMessage, type WebhookDelivery } from '../webhook-types.ts';
import { EmbeddedStore } from './store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const ago = (days: number): string => new Date(NOW - days * DAY).toISOString();

async function openStore(dir?: string): Promise<{ store: EmbeddedStore; dir: string }> {
  const at = dir ?? mkdtempSync(join(tmpdir(), 'delivery-records-'));
  if (!dir) dirs.push(at);
  return { store: await EmbeddedStore.open(at), dir: at };
}

async function org(store: EmbeddedStore, endpoints: number): Promise<{ orgId: string; endpointIds: string[] }> {
  const now = new Date(NOW).toISOString();
  const orgId = newId('org');
  await store.orgs.create({ id: orgId, name: orgId, plan: 'growth', rateLimit: null, language: 'en', createdAt: now, updatedAt: now });
  const endpointIds: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const id = newId('wh');
    await store.webhooks.create({
      id, orgId, url: `https://hooks.example/${i}`, events: ['review.created'], description: '', state: 'enabled', disabledReason: null,
      createdAt: now, updatedAt: now, lastDeliveryAt: null, failingSince: null, secrets: 'v1.sealed',
    });
    endpointIds.push(id);
  }
  return { orgId, endpointIds };
}

/** `count` messages of the organization, each fanned out to `to` (fresh deliveries, due at once). */
async function events(store: EmbeddedStore, orgId: string, to: string[], count: number, createdDays = 0): Promise<OutboxMessage[]> {
  const out: OutboxMessage[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const m: OutboxMessage = {
        id: `msg_${orgId.slice(4, 12)}${String(i).padStart(6, '0')}`, orgId, type: 'review.created', body: `{"n":${i}}`, createdAt: ago(createdDays), endpointId: null,
      };
      await store.webhooks.addMessage(m);
      await store.webhooks.fanOut(m.id, to.map((endpointId) => freshDelivery(m, endpointId, m.createdAt)));
      out.push(m);
    }),
  );
  return out;
}

describe("the embedded store's delivery records", () => {
  it("reads an endpoint's delivery log from that endpoint's records only, never another organization's, and the same after a restart", async () => {
    const { store, dir } = await openStore();
    const a = await org(store, 3);
    const b = await org(store, 2);
    await events(store, a.orgId, a.endpointIds, 200);
    const [bm] = await events(store, b.orgId, [b.endpointIds[1]!], 2);
    // One of them tried: a record in another form than a fresh one.
    const tried: WebhookDelivery = { ...freshDelivery(bm!, b.endpointIds[1]!, bm!.createdAt), attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', lastAttemptAt: ago(0), nextAttemptAt: ago(-1) };
    await store.webhooks.putDelivery(tried);

    let visits = store.deliveryVisits;
    expect(await store.webhooks.deliveries(b.endpointIds[0]!, null, 1000)).toEqual([]);
    expect(store.deliveryVisits - visits).toBe(0);
    visits = store.deliveryVisits;
    const bLog = await store.webhooks.deliveries(b.endpointIds[1]!, null, 1000);
    expect(bLog).toHaveLength(2);
    expect(bLog).toContainEqual(tried);
    expect(store.deliveryVisits - visits).toBe(2);
    visits = store.deliveryVisits;
    expect(await store.webhooks.deliveries(b.endpointIds[1]!, 'failed', 1000)).toEqual([]);
    expect(store.deliveryVisits - visits).toBe(2);
    // Organization A's log: its own 200 per endpoint, as fan-out wrote them.
    const aLog = await store.webhooks.deliveries(a.endpointIds[0]!, null, 50);
    expect(aLog).toHaveLength(50);
    expect(aLog.every((d) => d.endpointId === a.endpointIds[0] && d.orgId === a.orgId && d.status === 'pending' && d.attempts === 0)).toBe(true);
    expect(await store.webhooks.getDelivery(tried.id)).toEqual(tried);

    await store.close();
    const again = (await openStore(dir)).store;
    try {
      visits = again.deliveryVisits;
      expect(await again.webhooks.deliveries(b.endpointIds[0]!, null, 1000)).toEqual([]);
      expect(await again.webhooks.deliveries(b.endpointIds[1]!, null, 1000)).toEqual(bLog);
      expect(again.deliveryVisits - visits).toBe(2);
      expect(await again.webhooks.deliveries(a.endpointIds[0]!, null, 50)).toEqual(aLog);
    } finally {
      await again.close();
    }
  });

  it('prunes the oldest finished deliveries first, reading only what it prunes however many deliveries are pending', async () => {
    const { store } = await openStore();
    try {
      const a = await org(store, 3);
      const b = await org(store, 1);
      // Organization A: 600 pending deliveries, 40 days old (an endpoint down for weeks): never pruned.
      await events(store, a.orgId, a.endpointIds, 200, 40);
      // Organization B: 5 delivered 40, 39, …, 36 days ago, and one 2 days ago.
      const old = await events(store, b.orgId, b.endpointIds, 6, 41);
      for (const [i, m] of old.entries()) {
        await store.webhooks.putDelivery({ ...freshDelivery(m, b.endpointIds[0]!, m.createdAt), status: 'delivered', attempts: 1, lastStatusCode: 200, lastAttemptAt: ago(i === 5 ? 2 : 40 - i), nextAttemptAt: null });
      }
      const cutoff = new Date(NOW - 30 * DAY);
      const visits = store.deliveryVisits;
      // Two per call, oldest first: the deliveries of 40 and 39 days ago (their messages go with them).
      expect(await store.webhooks.prune(cutoff, 2)).toBe(4);
      expect(store.deliveryVisits - visits).toBeLessThanOrEqual(4);
      expect(await store.webhooks.getMessage(old[0]!.id)).toBeNull();
      expect(await store.webhooks.getMessage(old[1]!.id)).toBeNull();
      expect(await store.webhooks.getMessage(old[2]!.id)).not.toBeNull();
      expect(await store.webhooks.prune(cutoff, 2)).toBe(4);
      expect(await store.webhooks.prune(cutoff, 2)).toBe(2);
      expect(await store.webhooks.prune(cutoff, 2)).toBe(0);
      // Five calls read a handful of heap entries (each pruned record's, and again once stale), not the 600 pending ones.
      expect(store.deliveryVisits - visits).toBeLessThanOrEqual(12);
      expect((await store.webhooks.deliveries(b.endpointIds[0]!, null, 100)).map((d) => d.messageId)).toEqual([old[5]!.id]);
      expect(await store.webhooks.deliveries(a.endpointIds[2]!, 'pending', 1000)).toHaveLength(200);
    } finally {
      await store.close();
    }
  });
});
