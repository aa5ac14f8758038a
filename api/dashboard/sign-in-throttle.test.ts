import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { createRedis, RedisHealth } from '../limits/redis-health.ts';
import { MAX_FAILURES, SignInThrottle } from './sign-in-throttle.ts';

const clients: RedisHealth[] = [];
afterAll(() => {
  for (const health of clients) health.client.disconnect();
});

async function redisThrottle(): Promise<SignInThrottle> {
  const client = createRedis(inject('redisUrl'), 'throttle-test', `throttle-test-${randomBytes(4).toString('hex')}:`);
  const health = new RedisHealth(client, createLogger('silent'));
  clients.push(health);
  if (!health.usable) await once(client, 'ready');
  expect(health.usable).toBe(true);
  return new SignInThrottle(health);
}

describe.each([
  ['in process', async () => new SignInThrottle(null)],
  ['in Redis', redisThrottle],
])('sign-in throttle %s', (_name, make) => {
  it('lets at most 10 of a burst of 50 parallel guesses check a password', async () => {
    const throttle = await make();
    const ids = SignInThrottle.ids('victim@example.com', '203.0.113.9');
    const attempts = await Promise.all(Array.from({ length: 50 }, () => throttle.begin(ids)));
    const allowed = attempts.filter((a) => a.retryAfter === 0);
    expect(allowed).toHaveLength(MAX_FAILURES);
    await Promise.all(attempts.map((a) => a.settle(a.retryAfter === 0)));
    const next = await throttle.begin(ids);
    expect(next.retryAfter).toBeGreaterThan(0);
    expect(next.retryAfter).toBeLessThanOrEqual(15 * 60);
  });

  it('does not count a success, and counts an IPv6 client by its /64', async () => {
    const throttle = await make();
    for (let i = 0; i < 30; i++) {
      const ok = await throttle.begin(SignInThrottle.ids('owner@example.com', '198.51.100.7'));
      expect(ok.retryAfter).toBe(0);
      await ok.settle(false);
    }
    for (let i = 0; i < MAX_FAILURES; i++) {
      const attempt = await throttle.begin(SignInThrottle.ids(`user${i}@example.com`, `2001:db8:1:2::${i + 1}`));
      expect(attempt.retryAfter).toBe(0);
      await attempt.settle(true);
    }
    const other = await throttle.begin(SignInThrottle.ids('someone@example.com', '2001:db8:1:2:ffff::1'));
    expect(other.retryAfter).toBeGreaterThan(0);
  });
});
