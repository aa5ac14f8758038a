/**
 * The batching `db` against a real Redis, side by side with async-ratelimiter's
 * own scripted command (what koa-ratelimit uses on a plain ioredis client):
 * same answers, fewer round trips.
 */
import { randomUUID } from 'node:crypto';
import RateLimiter from 'async-ratelimiter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BatchedRateLimitDb } from './batched-redis-driver.ts';

describe('BatchedRateLimitDb', () => {
  const prefix = `test:${randomUUID()}:`;
  let reference: Redis;
  let batched: Redis;
  let other: Redis;
  let scriptCalls = 0;
  let db: BatchedRateLimitDb;
  let otherDb: BatchedRateLimitDb;

  beforeAll(() => {
    reference = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}ref:` });
    batched = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}new:` });
    other = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}new:` });
    db = new BatchedRateLimitDb(batched, () => scriptCalls++);
    otherDb = new BatchedRateLimitDb(other);
  });
  afterAll(async () => {
    await Promise.all([reference.quit(), batched.quit(), other.quit()]);
  });

  /** async-ratelimiter's limiter over either db (koa-ratelimit makes one of these per request). */
  const limiter = (target: Redis | BatchedRateLimitDb, id: string, max: number) =>
    new RateLimiter({ db: target as Redis, id, max, duration: 60_000, namespace: 'rl' });

  it('gives the answers of async-ratelimiter’s own script, and sends the calls of two turns as one script call', async () => {
    const calls = 25;
    const before = scriptCalls;
    const [ours, theirs] = await Promise.all([
      Promise.all(Array.from({ length: calls }, () => limiter(db, 'org-a', 20).get())),
      Promise.all(Array.from({ length: calls }, () => limiter(reference, 'org-a', 20).get())),
    ]);
    expect(scriptCalls - before).toBe(1);
    expect(ours.map((r) => [r.remaining, r.total])).toEqual(theirs.map((r) => [r.remaining, r.total]));
    expect(ours.map((r) => r.remaining)).toEqual([...Array.from({ length: 20 }, (_, i) => 20 - i), 0, 0, 0, 0, 0]);
    ours.forEach((r, i) => expect(Math.abs(r.reset - theirs[i]!.reset)).toBeLessThanOrEqual(1));
    // The window's reset is its oldest entry + the duration, in epoch seconds.
    expect(ours[0]!.reset).toBeGreaterThan(Date.now() / 1000 + 58);
    expect(ours[0]!.reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
  });

  it('gathers the calls made in the next turn of the event loop into the same script call', async () => {
    const before = scriptCalls;
    const first = limiter(db, 'org-turns', 10).get();
    // Made in the next turn (as the next poll's requests are), before the batch is sent.
    const second = await new Promise<Promise<{ remaining: number }>>((resolve) => setImmediate(() => resolve(limiter(db, 'org-turns', 10).get())));
    const answers = await Promise.all([first, second]);
    expect(scriptCalls - before).toBe(1);
    expect(answers.map((r) => r.remaining)).toEqual([10, 9]);
  });

  it('keeps the window under the configured key prefix, one entry per admitted call', async () => {
    await limiter(db, 'org-keys', 5).get();
    await limiter(db, 'org-keys', 5).get();
    const plain = new Redis(inject('redisUrl'));
    try {
      expect(await plain.zcard(`${prefix}new:rl:org-keys`)).toBe(2);
      expect(await plain.pttl(`${prefix}new:rl:org-keys`)).toBeGreaterThan(59_000);
    } finally {
      await plain.quit();
    }
  });

  it('admits exactly the limit across two instances calling at once', async () => {
    const results = await Promise.all([
      ...Array.from({ length: 30 }, () => limiter(db, 'org-shared', 40).get()),
      ...Array.from({ length: 30 }, () => limiter(otherDb, 'org-shared', 40).get()),
    ]);
    expect(results.filter((r) => r.remaining > 0)).toHaveLength(40);
    expect(results.filter((r) => r.remaining === 0)).toHaveLength(20);
  });

  it('applies a lowered limit to the window already counted, and a peek counts nothing', async () => {
    for (let i = 0; i < 3; i++) await limiter(db, 'org-change', 10).get();
    expect((await limiter(db, 'org-change', 10).get({ peek: true })).remaining).toBe(7);
    expect((await limiter(db, 'org-change', 4).get()).remaining).toBe(1);
    expect((await limiter(db, 'org-change', 4).get()).remaining).toBe(0);
    expect((await limiter(db, 'org-change', 10).get()).remaining).toBe(6);
  });

  it('counts different ids in one batch separately', async () => {
    const results = await Promise.all(['x', 'y', 'x', 'z', 'x'].map((id) => limiter(db, `org-${id}`, 2).get()));
    expect(results.map((r) => r.remaining)).toEqual([2, 2, 1, 2, 0]);
  });

  it('rejects every call of a batch when Redis fails, so the caller can fall back', async () => {
    // Nothing listens on port 1: the connection never becomes ready.
    const broken = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    broken.on('error', () => {});
    const brokenDb = new BatchedRateLimitDb(broken);
    const results = await Promise.allSettled([limiter(brokenDb, 'org-down', 5).get(), limiter(brokenDb, 'org-down', 5).get()]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    broken.disconnect();
  });
});
