/**
 * The batching `db` against a real Redis, side by side with async-ratelimiter's
 * own scripted command (what koa-ratelimit uses on a plain ioredis client):
 * same answers, fewer round trips.
 */
import { randomUUID } from 'node:crypto';
import RateLimiter from 'async-ratelimiter';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BatchedRateLimitDb, LEASE_HEADROOM } from './batched-redis-driver.ts';

describe('BatchedRateLimitDb', () => {
  const prefix = `test:${randomUUID()}:`;
  let reference: Redis;
  let batched: Redis;
  let other: Redis;
  let scriptCalls = 0;
  let otherCalls = 0;
  let db: BatchedRateLimitDb;
  let otherDb: BatchedRateLimitDb;

  beforeAll(() => {
    reference = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}ref:` });
    batched = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}new:` });
    other = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}new:` });
    db = new BatchedRateLimitDb(batched, () => scriptCalls++);
    otherDb = new BatchedRateLimitDb(other, () => otherCalls++);
  });
  afterAll(async () => {
    await Promise.all([db.close(), otherDb.close()]);
    await Promise.all([reference.quit(), batched.quit(), other.quit()]);
  });

  /** Polls `read` until it gives `want` (a write that lands after the answer), for at most 5 s. */
  async function until<T>(read: () => Promise<T>, want: T): Promise<void> {
    const deadline = Date.now() + 5_000;
    let last = await read();
    while (last !== want && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      last = await read();
    }
    expect(last).toBe(want);
  }

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

  it('leases places to a busy id with room to spare: a script call per lease, never more than the limit across two instances, and the unused places come back', async () => {
    const max = LEASE_HEADROOM + 300;
    const plain = new Redis(inject('redisUrl'));
    try {
      const before = [scriptCalls, otherCalls];
      let admitted = 0;
      // One developer's requests, one after another, at two instances in turn: 300 places used, 512 left.
      for (let i = 0; i < 150; i++) {
        for (const target of [db, otherDb]) if ((await limiter(target, 'org-lease', max).get()).remaining > 0) admitted++;
      }
      // 300 calls; without leases, one script call each.
      expect(scriptCalls - before[0]! + (otherCalls - before[1]!)).toBeLessThan(300 / 4);
      expect(admitted).toBe(300);
      // On past the limit: near it, every call is Redis's.
      for (let i = 0; i < max; i++) {
        for (const target of [db, otherDb]) if ((await limiter(target, 'org-lease', max).get()).remaining > 0) admitted++;
      }
      expect(admitted).toBeLessThanOrEqual(max);
      // The leases end within LEASE_MS; their unused places leave the window, and the last ones are admitted.
      await until(async () => plain.zcard(`${prefix}new:rl:org-lease`), admitted);
      for (let i = 0; i < 40; i++) {
        for (const target of [db, otherDb]) if ((await limiter(target, 'org-lease', max).get()).remaining > 0) admitted++;
      }
      expect(admitted).toBe(max);
      expect(await plain.zcard(`${prefix}new:rl:org-lease`)).toBe(max);
    } finally {
      await plain.quit();
    }
  });

  it('gives no lease near the limit: a plan of 200 a minute is Redis’s on every call', async () => {
    const before = scriptCalls;
    for (let i = 0; i < 50; i++) await limiter(db, 'org-plan', 200).get();
    expect(scriptCalls - before).toBe(50);
  });

  it('admits ahead below half the limit, counts those calls in Redis right after, and is exact from half on', async () => {
    const plain = new Redis(inject('redisUrl'));
    const key = 'rl:public:visitor-a';
    const now = () => Date.now();
    try {
      const ahead = Array.from({ length: 6 }, () => db.admitAhead(key, now(), 60_000, 10));
      // Five admitted at once (remaining before each: 10, 9, …), the sixth asks Redis.
      expect(ahead.map((reply) => reply?.[0] ?? null)).toEqual([10, 9, 8, 7, 6, null]);
      await until(async () => plain.zcard(`${prefix}new:${key}`), 5);
      // Another instance counts three more; this one, at half, asks Redis exactly from now on.
      for (let i = 0; i < 3; i++) await limiter(otherDb, 'public:visitor-a', 10).get();
      expect(db.admitAhead(key, now(), 60_000, 10)).toBeNull();
      const exact = await Promise.all(Array.from({ length: 4 }, () => limiter(db, 'public:visitor-a', 10).get()));
      expect(exact.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
      expect(await plain.zcard(`${prefix}new:${key}`)).toBe(10);
    } finally {
      await plain.quit();
    }
  });

  it('an address first seen here while the other instance counted past half: one call ahead, then Redis’s answer holds it', async () => {
    for (let i = 0; i < 9; i++) await limiter(otherDb, 'public:visitor-b', 10).get();
    // This instance knows nothing of the address yet: admitted at once, counted right after (the documented bound).
    expect(db.admitAhead('rl:public:visitor-b', Date.now(), 60_000, 10)).not.toBeNull();
    await db.flushNow();
    expect(db.admitAhead('rl:public:visitor-b', Date.now(), 60_000, 10)).toBeNull();
    expect((await limiter(db, 'public:visitor-b', 10).get()).remaining).toBe(0);
  });

  it('tells of a failed count made after the answer, so the limiter can fall back', async () => {
    const broken = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    broken.on('error', () => {});
    const errors: unknown[] = [];
    const brokenDb = new BatchedRateLimitDb(broken, { onError: (err) => errors.push(err) });
    expect(brokenDb.admitAhead('rl:public:visitor-c', Date.now(), 60_000, 10)).not.toBeNull();
    await brokenDb.flushNow();
    expect(errors).toHaveLength(1);
    brokenDb.close();
    broken.disconnect();
  });

  it('gives every lease’s unused places back when it closes, so a restart holds none of the window', async () => {
    const plain = new Redis(inject('redisUrl'));
    const client = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}new:` });
    const leaving = new BatchedRateLimitDb(client);
    const max = LEASE_HEADROOM + 300;
    try {
      let admitted = 0;
      for (let i = 0; i < 200; i++) if ((await limiter(leaving, 'org-restart', max).get()).remaining > 0) admitted++;
      // A lease holds places nobody used yet.
      expect(await plain.zcard(`${prefix}new:rl:org-restart`)).toBeGreaterThan(admitted);
      await leaving.close();
      expect(await plain.zcard(`${prefix}new:rl:org-restart`)).toBe(admitted);
    } finally {
      await Promise.all([plain.quit(), client.quit()]);
    }
  });

  it('remembers the addresses counted after the answer by last use: a busy one at half is not forgotten when many others arrive', async () => {
    const client = new Redis(inject('redisUrl'), { keyPrefix: `${prefix}new:` });
    const small = new BatchedRateLimitDb(client, { maxTracked: 10 });
    try {
      const busy = 'rl:public:busy-visitor';
      for (let i = 0; i < 5; i++) expect(small.admitAhead(busy, Date.now(), 60_000, 10)).not.toBeNull();
      await small.flushNow();
      for (let round = 0; round < 3; round++) {
        // Nine other visitors each time; the busy address asks between them and stays among the last ten.
        for (let i = 0; i < 9; i++) small.admitAhead(`rl:public:other-${round}-${i}`, Date.now(), 60_000, 10);
        expect(small.admitAhead(busy, Date.now(), 60_000, 10)).toBeNull();
      }
    } finally {
      await small.close();
      await client.quit();
    }
  });
});
