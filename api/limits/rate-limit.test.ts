/**
 * Per-organization rate limits over real HTTPS: a real Redis shared by two
 * instances, a restart keeping the window, per-organization overrides, and
 * Redis going away and coming back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedis } from '../test/global-setup.ts';
import type { Context } from 'koa';
import { startTestService, type TestService } from '../test/harness.ts';
import { AUTH_FAILURES_PER_MINUTE } from '../auth/authenticate.ts';
import { Limiter } from './rate-limit.ts';

async function hammer(t: TestService, key: string, n: number, path = '/api/v1/reviews/stats'): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await t.get(path, { key })).status);
  return statuses;
}

const count = (xs: number[], status: number) => xs.filter((x) => x === status).length;

describe('per-organization rate limit with Redis', () => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService();
    // A second instance on the SAME store and the same Redis: what a load balancer spreads over.
    b = await startTestService({ store: a.service.store, env: { REDIS_KEY_PREFIX: a.service.config.redisKeyPrefix } });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('admits exactly the limit across two instances, all keys of an organization together', async () => {
    const { orgId, key } = await a.org('growth', 20);
    const second = await a.admin('POST', '/admin/keys', { orgId, name: 'second' });
    const key2 = second.body.key as string;
    const results = await Promise.all([
      ...Array.from({ length: 15 }, () => a.get('/api/v1/reviews', { key })),
      ...Array.from({ length: 15 }, () => b.get('/api/v1/reviews', { key: key2 })),
    ]);
    const statuses = results.map((r) => r.status);
    expect(count(statuses, 200)).toBe(20);
    expect(count(statuses, 429)).toBe(10);
    const limited = results.find((r) => r.status === 429)!;
    expect(limited.body).toEqual({ error: 'rate_limit_exceeded', message: expect.stringMatching(/Retry after \d+ seconds/), details: [] });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-limit']).toBe('20');
  });

  it('counts organizations separately', async () => {
    const one = await a.org('growth', 3);
    const two = await a.org('growth', 3);
    expect(await hammer(a, one.key, 4)).toEqual([200, 200, 200, 429]);
    expect(await hammer(b, two.key, 3)).toEqual([200, 200, 200]);
  });

  it('uses the plan limit, and an override set later applies on the next request', async () => {
    const { orgId, key } = await a.org('agency');
    const first = await a.get('/api/v1/reviews', { key });
    expect(first.headers['x-ratelimit-limit']).toBe('200');
    expect(first.headers['ratelimit-policy']).toBe('200;w=60');
    // The IETF field says what the X-RateLimit-* fields say: the same limit and remaining, reset as seconds from now.
    const remaining = Number(first.headers['x-ratelimit-remaining']);
    const reset = Number(first.headers['x-ratelimit-reset']);
    expect(Number.isInteger(remaining) && Number.isInteger(reset)).toBe(true);
    const fields = /^limit=(\d+), remaining=(\d+), reset=(\d+)$/.exec(String(first.headers.ratelimit));
    expect(fields?.slice(1, 3)).toEqual(['200', String(remaining)]);
    const secondsLeft = Number(fields![3]);
    expect(secondsLeft).toBeGreaterThanOrEqual(0);
    expect(secondsLeft).toBeLessThanOrEqual(60);
    expect(Math.abs(secondsLeft - (reset - Math.floor(Date.now() / 1000)))).toBeLessThanOrEqual(1);
    await a.admin('PATCH', `/admin/orgs/${orgId}`, { rateLimit: 2 });
    // The window already holds one request: one more is admitted, then 429.
    expect(await hammer(b, key, 2, '/api/v1/reviews')).toEqual([200, 429]);
  });

  it('keeps the window across a restart of the instance', async () => {
    const { key } = await a.org('growth', 5);
    expect(await hammer(a, key, 3)).toEqual([200, 200, 200]);
    const restarted = await startTestService({ dataDir: b.dataDir, store: a.service.store, env: { REDIS_KEY_PREFIX: a.service.config.redisKeyPrefix } });
    try {
      expect(await hammer(restarted, key, 3)).toEqual([200, 200, 429]);
    } finally {
      await restarted.close();
    }
  });

  it('does not count requests refused before the limiter (401, 403)', async () => {
    const { orgId, key } = await a.org('free');
    expect(await hammer(a, key, 3)).toEqual([403, 403, 403]);
    await a.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'growth', rateLimit: 2 });
    expect(await hammer(a, key, 3)).toEqual([200, 200, 429]);
  });
});

describe('Redis outages', () => {
  it('keeps answering with per-process limits while Redis is down, says so in /readyz, and resumes shared limits when it returns', async () => {
    const redis = await startRedis(inject('redisBin'));
    const t = await startTestService({ env: { REDIS_URL: redis.url } });
    try {
      const { key } = await t.org('growth', 1000);
      expect((await t.get('/readyz')).status).toBe(200);
      expect((await t.get('/api/v1/reviews', { key })).status).toBe(200);

      redis.process.kill('SIGKILL');
      await new Promise((r) => redis.process.once('exit', r));
      const during: number[] = [];
      for (let i = 0; i < 20; i++) during.push((await t.get('/api/v1/reviews', { key })).status);
      expect(during.every((s) => s === 200)).toBe(true);
      const ready = await t.get('/readyz');
      expect(ready.status).toBe(503);
      expect((ready.body as { message: string }).message).toMatch(/redis/);

      // The insurance limiter still limits.
      const small = await t.org('growth', 2);
      expect(await hammer(t, small.key, 3)).toEqual([200, 200, 429]);

      const back = await startRedis(inject('redisBin'), redis.port);
      try {
        const deadline = Date.now() + 15_000;
        while ((await t.get('/readyz')).status !== 200) {
          if (Date.now() > deadline) throw new Error('Redis did not come back within 15 s');
          await new Promise((r) => setTimeout(r, 200));
        }
        const other = await t.org('growth', 2);
        expect(await hammer(t, other.key, 3)).toEqual([200, 200, 429]);
        const probe = new Redis(back.url);
        const keys = await probe.keys(`${t.service.config.redisKeyPrefix}rl:org:*`);
        await probe.quit();
        expect(keys.length).toBeGreaterThan(0);
      } finally {
        back.process.kill('SIGKILL');
      }
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('in-process limiter (no Redis)', () => {
  it('applies a limit changed mid-window on the next request, both ways', async () => {
    const t = await startTestService({ redis: false });
    try {
      const { orgId, key } = await t.org('growth', 3);
      expect(await hammer(t, key, 4)).toEqual([200, 200, 200, 429]);
      await t.admin('PATCH', `/admin/orgs/${orgId}`, { plan: 'agency', rateLimit: 100 });
      const raised = await t.get('/api/v1/reviews/stats', { key });
      expect(raised.status).toBe(200);
      expect(raised.headers['x-ratelimit-limit']).toBe('100');
      // Refused requests do not count: 3 admitted before, this is the 4th.
      expect(raised.headers['x-ratelimit-remaining']).toBe('96');
      await t.admin('PATCH', `/admin/orgs/${orgId}`, { rateLimit: 6 });
      expect(await hammer(t, key, 2)).toEqual([200, 200]);
      const limited = await t.get('/api/v1/reviews/stats', { key });
      expect(limited.status).toBe(429);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      const retry = Number(limited.headers['retry-after']);
      const reset = Number(limited.headers['x-ratelimit-reset']);
      expect(Math.abs(reset - Date.now() / 1000 - retry)).toBeLessThanOrEqual(1.5);
    } finally {
      await t.close();
    }
  });
});

describe('per-address limits', () => {
  it('count an IPv6 client by its /64 (inventing addresses inside it does not help), other /64s apart', async () => {
    // The test client connects from 127.0.0.1, listed as a proxy, and reports IPv6 clients.
    const t = await startTestService({ env: { TRUST_PROXY: '127.0.0.1' }, redis: false });
    try {
      const statuses: number[] = [];
      for (let i = 0; i <= AUTH_FAILURES_PER_MINUTE; i++) {
        const res = await t.get('/api/v1/reviews', { key: 'rvp_live_wrong', headers: { 'x-forwarded-for': `2001:db8:7:7:${i.toString(16)}::${i + 1}` } });
        statuses.push(res.status);
      }
      expect(count(statuses, 401)).toBe(AUTH_FAILURES_PER_MINUTE);
      expect(statuses.at(-1)).toBe(429);
      const otherNetwork = await t.get('/api/v1/reviews', { key: 'rvp_live_wrong', headers: { 'x-forwarded-for': '2001:db8:7:8::1' } });
      expect(otherNetwork.status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('keep a bounded number of in-process windows, however many addresses come', async () => {
    const limiter = new Limiter({ name: 'bounded', durationMs: 60_000, id: (ctx) => ctx.state.id as string, headers: false, redis: null, maxWindows: 1000 });
    try {
      let admitted = 0;
      for (let i = 0; i < 20_000; i++) {
        const ctx = { state: { id: `198.18.${i >> 8}.${i & 255}` }, set() {}, response: { get: () => '' } } as unknown as Context;
        await limiter.run(ctx, 5, async () => {
          admitted++;
        });
        expect(limiter.trackedIds).toBeLessThanOrEqual(1000);
      }
      expect(admitted).toBe(20_000);
      expect(limiter.trackedIds).toBe(1000);
      // The newest windows are the ones kept: the latest address is still counted.
      const last = { state: { id: '198.18.78.31' }, set() {}, response: { get: () => '' } } as unknown as Context;
      for (let i = 0; i < 4; i++) await limiter.run(last, 5, async () => undefined);
      await expect(limiter.run(last, 5, async () => undefined)).rejects.toMatchObject({ status: 429 });
    } finally {
      limiter.close();
    }
  });
});
