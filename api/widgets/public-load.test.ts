/**
 * What anonymous requests can make the store do: concurrent misses of the
 * public widget data share one computation, and /demo never reaches a store
 * other than the embedded default.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../store/embedded/store.ts';
import type { Store } from '../store/types.ts';
import { startTestService, type TestService } from '../test/harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real embedded store that counts calls, optionally holding statistics until `release()`. */
async function countingStore(kind: Store['kind'] = 'embedded') {
  const dir = mkdtempSync(join(tmpdir(), 'counting-store-'));
  const real = await EmbeddedStore.open(dir);
  cleanups.push(async () => {
    await real.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const counts = { orgList: 0, widgetGet: 0, stats: 0 };
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let holding = false;
  const store: Store = {
    kind,
    orgs: { ...real.orgs, list: () => (counts.orgList++, real.orgs.list()) },
    keys: real.keys,
    people: real.people,
    moderation: real.moderation,
    sources: real.sources,
    webhooks: real.webhooks,
    products: real.products,
    replies: real.replies,
    collect: real.collect,
    invitations: real.invitations,
    widgets: { ...real.widgets, get: (id) => (counts.widgetGet++, real.widgets.get(id)) },
    reviews: {
      ...real.reviews,
      stats: async (q) => {
        counts.stats++;
        if (holding) await gate;
        return real.reviews.stats(q);
      },
    },
    ping: () => real.ping(),
    close: async () => undefined,
  };
  return { store, counts, hold: () => (holding = true), release };
}

async function service(store: Store): Promise<TestService> {
  const t = await startTestService({ store, redis: false });
  cleanups.push(() => t.close());
  return t;
}

describe('public widget data under a crowd', () => {
  it('computes once for 50 concurrent requests that miss the cache', async () => {
    const { store, counts, hold, release } = await countingStore();
    const t = await service(store);
    const { orgId } = await t.org('growth');
    const widget = await t.admin('POST', '/admin/widgets', { orgId, name: 'Crowd' });
    const id = widget.body.id as string;
    hold();
    const requests = Array.from({ length: 50 }, () => t.get(`/public/v1/widgets/${id}`));
    // Every request has looked its widget up (and so reached the cache) before the computation may finish.
    const deadline = Date.now() + 20_000;
    while (counts.widgetGet < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(counts.widgetGet).toBe(50);
    release();
    const answers = await Promise.all(requests);
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(counts.stats).toBe(1);
  });
});

describe('/demo', () => {
  it('is 404 without any store call on a store other than the embedded one', async () => {
    const { store, counts } = await countingStore('mongodb');
    const t = await service(store);
    const before = { ...counts };
    const res = await t.get('/demo', { skipValidation: true });
    expect(res.status).toBe(404);
    expect(counts).toEqual(before);
  });

  it('is rate limited per client address on the embedded store, and lists organizations once', async () => {
    const { store, counts } = await countingStore();
    const t = await service(store);
    const { ensureDemo } = await import('../demo/seed.ts');
    await ensureDemo(t.service.store);
    const listed = counts.orgList;
    for (let i = 0; i < 3; i++) {
      const res = await t.get('/demo', { skipValidation: true });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('600');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(600 - i - 1);
    }
    expect(counts.orgList - listed).toBe(1);
  });
});
