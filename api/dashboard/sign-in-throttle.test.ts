import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { createRedis, RedisHealth } from '../limits/redis-health.ts';
import { DeviceCookies } from './device-cookie.ts';
import { EMAIL_CEILING, MAX_FAILURES, SignInThrottle } from './sign-in-throttle.ts';

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
    const ids = SignInThrottle.limits('victim@example.com', '203.0.113.9');
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
      const ok = await throttle.begin(SignInThrottle.limits('owner@example.com', '198.51.100.7'));
      expect(ok.retryAfter).toBe(0);
      await ok.settle(false);
    }
    for (let i = 0; i < MAX_FAILURES; i++) {
      const attempt = await throttle.begin(SignInThrottle.limits(`user${i}@example.com`, `2001:db8:1:2::${i + 1}`));
      expect(attempt.retryAfter).toBe(0);
      await attempt.settle(true);
    }
    const other = await throttle.begin(SignInThrottle.limits('someone@example.com', '2001:db8:1:2:ffff::1'));
    expect(other.retryAfter).toBeGreaterThan(0);
  });

  /** `failures` wrong passwords for the email, each from its own address in the network given (so the per-address limit stays out of it). */
  async function fail(throttle: SignInThrottle, email: string, addresses: string[], device = false): Promise<void> {
    for (const address of addresses) {
      const attempt = await throttle.begin(SignInThrottle.limits(email, address, device));
      expect(attempt.retryAfter).toBe(0);
      await attempt.settle(true);
    }
  }
  const hosts = (prefix: string, n: number, from = 1) => Array.from({ length: n }, (_, i) => `${prefix}${i + from}`);

  it('locks an email out of the network its failures came from only: another /24 (or /64) still signs in with the right password', async () => {
    const throttle = await make();
    await fail(throttle, 'victim@example.com', hosts('203.0.113.', MAX_FAILURES));
    const sameNet = await throttle.begin(SignInThrottle.limits('victim@example.com', '203.0.113.200'));
    expect(sameNet.retryAfter).toBeGreaterThan(0);
    const lastOne = await throttle.begin(SignInThrottle.limits('Victim@Example.com', '203.0.113.10'));
    expect(lastOne.retryAfter).toBeGreaterThan(0);
    // The owner, elsewhere, with the right password: allowed, and a success counts nothing.
    const elsewhere = await throttle.begin(SignInThrottle.limits('victim@example.com', '198.51.100.7'));
    expect(elsewhere.retryAfter).toBe(0);
    await elsewhere.settle(false);
    // IPv6: the /48 is the network (one site), whichever of its /64s the guesses come from.
    await fail(throttle, 'six@example.com', Array.from({ length: MAX_FAILURES }, (_, i) => `2001:db8:5:${(i + 1).toString(16)}::1`));
    expect((await throttle.begin(SignInThrottle.limits('six@example.com', '2001:db8:5:ff00::1'))).retryAfter).toBeGreaterThan(0);
    expect((await throttle.begin(SignInThrottle.limits('six@example.com', '2001:db8:6::1'))).retryAfter).toBe(0);
  });

  it('does not let one IPv6 site (a /56 of 256 /64s) reach the ceiling and lock an email out everywhere', async () => {
    const throttle = await make();
    // One guess from each of 150 /64s of one /56: only the first 10 are checked (and counted).
    let checked = 0;
    for (let n = 0; n < 150; n++) {
      const attempt = await throttle.begin(SignInThrottle.limits('victim6@example.com', `2001:db8:77:${(0x4200 + n).toString(16)}::9`));
      if (attempt.retryAfter === 0) checked++;
      await attempt.settle(true);
    }
    expect(checked).toBe(MAX_FAILURES);
    // The owner, from another network, still signs in.
    expect((await throttle.begin(SignInThrottle.limits('victim6@example.com', '198.51.100.7'))).retryAfter).toBe(0);
  });

  it(`stops an email at ${EMAIL_CEILING} failures from every network together (the ceiling), and says that failure locks it out`, async () => {
    const throttle = await make();
    const networks = Array.from({ length: EMAIL_CEILING / MAX_FAILURES }, (_, n) => `10.${n}.0.`);
    for (const [n, net] of networks.entries()) {
      const addresses = hosts(net, MAX_FAILURES);
      const last = n === networks.length - 1 ? addresses.pop()! : null;
      await fail(throttle, 'everyone@example.com', addresses);
      if (last) {
        const locking = await throttle.begin(SignInThrottle.limits('everyone@example.com', last));
        expect([locking.retryAfter, locking.locksOut]).toEqual([0, true]);
        await locking.settle(true);
      }
    }
    const fresh = await throttle.begin(SignInThrottle.limits('everyone@example.com', '192.0.2.1'));
    expect(fresh.retryAfter).toBeGreaterThan(0);
    expect(fresh.retryAfter).toBeLessThanOrEqual(15 * 60);
    // Other emails are not concerned.
    expect((await throttle.begin(SignInThrottle.limits('other@example.com', '192.0.2.1'))).retryAfter).toBe(0);
  });

  it('lets a browser with a device cookie for the email through the per-email limits, not a forged one or one for another email', async () => {
    const throttle = await make();
    const devices = new DeviceCookies(randomBytes(32));
    const cookie = devices.issue('Known@Example.com');
    // Locked out from the person's own network: 10 failures there, from 10 addresses.
    await fail(throttle, 'known@example.com', hosts('203.0.113.', MAX_FAILURES));
    const at = '203.0.113.77';
    const limitsWith = (value: string | null, email = 'known@example.com') => SignInThrottle.limits(email, at, devices.verify(value, email));

    expect((await throttle.begin(limitsWith(null))).retryAfter).toBeGreaterThan(0);
    const forged = cookie.slice(0, 22) + randomBytes(32).toString('base64url');
    const otherKey = new DeviceCookies(randomBytes(32)).issue('known@example.com');
    const otherEmail = devices.issue('someone.else@example.com');
    for (const value of [forged, otherKey, otherEmail, cookie.slice(0, -1), 'x'.repeat(65)]) {
      const refused = await throttle.begin(limitsWith(value));
      expect(refused.retryAfter).toBeGreaterThan(0);
    }
    const trusted = await throttle.begin(limitsWith(cookie, ' KNOWN@example.com '));
    expect(trusted.retryAfter).toBe(0);
    await trusted.settle(false);

    // The ceiling does not hold it back either; the per-address limit still does.
    await fail(throttle, 'known@example.com', Array.from({ length: EMAIL_CEILING }, (_, i) => `10.${Math.floor(i / 10)}.1.${(i % 10) + 1}`).slice(MAX_FAILURES));
    expect((await throttle.begin(SignInThrottle.limits('known@example.com', '192.0.2.9'))).retryAfter).toBeGreaterThan(0);
    await fail(throttle, 'known@example.com', Array.from({ length: MAX_FAILURES }, () => '192.0.2.50'), true);
    expect((await throttle.begin(SignInThrottle.limits('known@example.com', '192.0.2.50', true))).retryAfter).toBeGreaterThan(0);
    expect((await throttle.begin(SignInThrottle.limits('known@example.com', '192.0.2.51', true))).retryAfter).toBe(0);
  });
});
