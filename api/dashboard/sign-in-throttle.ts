/**
 * Failed sign-ins in any 15 minutes (a sliding window), then 429 with
 * Retry-After until the oldest failure leaves the window:
 * - 10 per client address (an IPv6 client by its /64);
 * - 10 per email from one network (an IPv4 /24, an IPv6 /48): guesses from
 *   one place lock that email out there, not everywhere. An IPv6 network is
 *   a /48, the usual assignment to one site: a home or office holding a /56
 *   or /48 has 256 or 65,536 /64s, and counting by /64 would let it reach
 *   the ceiling below (and lock the email out everywhere) on its own;
 * - 100 per email from anywhere (EMAIL_CEILING), against guessing spread
 *   over many networks.
 * A browser holding a device cookie for the email (device-cookie.ts: it signed
 * in as that email before) is exempt from both per-email limits, not from the
 * per-address one, so nobody can lock a person out of a browser they use.
 * Only failures count; a correct password after a limit is refused too
 * (otherwise the limit would not stop guessing).
 *
 * With REDIS_URL the failures live in Redis (one sorted set per email and per
 * address, shared by every instance); without it, or while Redis is away, in
 * this process. A Redis error never becomes a 500 here.
 */
import { randomBytes } from 'node:crypto';
import { addressKey } from '../limits/address-key.ts';
import type { RedisHealth } from '../limits/redis-health.ts';

export const MAX_FAILURES = 10;
/** Failures per email from every network together, in the window. */
export const EMAIL_CEILING = 100;
export const WINDOW_MS = 15 * 60_000;

/** A count an attempt is recorded under, and how many failures it allows. */
export interface Limit {
  id: string;
  max: number;
  /** A per-email limit: reaching it locks a person's email out (a security event). */
  email: boolean;
}

/** The network an address is in, for the per-email limit: an IPv4 /24, an IPv6 /48. */
export function networkKey(address: string): string {
  const key = addressKey(address);
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.\d+$/.exec(key);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  // addressKey gives an IPv6 client's /64 as its first four groups, `a:b:c:d::/64`.
  const v6 = /^([0-9a-f]+):([0-9a-f]+):([0-9a-f]+):[0-9a-f]+::\/64$/.exec(key);
  return v6 ? `${v6[1]}:${v6[2]}:${v6[3]}::/48` : key;
}

/** One sign-in attempt, counted before its password is checked; settled when the check is done. */
export interface Attempt {
  /** Seconds until an attempt is allowed again; 0: this one may check its password. */
  readonly retryAfter: number;
  /** True when this attempt, if it fails, is the one that locks its email out (a security event). */
  readonly locksOut: boolean;
  /** A failure stays counted; a success (or a refused attempt) takes the entry back. */
  settle(failed: boolean): Promise<void>;
}

/**
 * Attempts are recorded BEFORE the password is checked, atomically with the
 * count (one MULTI in Redis; synchronous in this process), and an attempt in
 * flight counts as a failure: a burst of parallel guesses cannot all pass the
 * check before the first failure is written.
 */
export class SignInThrottle {
  private readonly local = new Map<string, Map<string, number>>();

  constructor(private readonly redis: RedisHealth | null) {}

  /**
   * The limits a sign-in attempt is counted under: the client's address, and
   * unless `trustedDevice` (a valid device cookie for this email), the email
   * from the client's network and the email from anywhere.
   */
  static limits(email: string, address: string, trustedDevice = false): Limit[] {
    const key = email.trim().toLowerCase();
    const perAddress: Limit = { id: `ip:${addressKey(address)}`, max: MAX_FAILURES, email: false };
    if (trustedDevice) return [perAddress];
    return [perAddress, { id: `email:${key}:net:${networkKey(address)}`, max: MAX_FAILURES, email: true }, { id: `email:${key}`, max: EMAIL_CEILING, email: true }];
  }

  async begin(limits: Limit[], now = Date.now()): Promise<Attempt> {
    const ids = limits.map((l) => l.id);
    const member = `${now}:${randomBytes(6).toString('hex')}`;
    const others = await this.record(ids, member, now);
    let waitMs = 0;
    others.forEach((times, i) => {
      const { max } = limits[i]!;
      if (times.length >= max) waitMs = Math.max(waitMs, times[times.length - max]! + WINDOW_MS - now, 1);
    });
    const attempt: Attempt = {
      retryAfter: waitMs > 0 ? Math.ceil(waitMs / 1000) : 0,
      locksOut: waitMs === 0 && others.some((times, i) => limits[i]!.email && times.length + 1 === limits[i]!.max),
      settle: async (failed) => {
        if (!failed) await this.forget(ids, member);
      },
    };
    if (waitMs > 0) await attempt.settle(false);
    return attempt;
  }

  /** Adds the attempt to every id; answers, per id, the other entries within the window, oldest first. */
  private async record(ids: string[], member: string, now: number): Promise<number[][]> {
    if (this.redis?.usable) {
      try {
        const multi = this.redis.client.multi();
        for (const id of ids) {
          const key = `signin:${id}`;
          multi.zremrangebyscore(key, 0, now - WINDOW_MS);
          multi.zrange(key, 0, -1, 'WITHSCORES');
          multi.zadd(key, now, member);
          multi.pexpire(key, WINDOW_MS);
        }
        const results = (await multi.exec()) ?? [];
        return ids.map((_, i) => {
          const [err, scores] = results[i * 4 + 1] ?? [null, []];
          if (err) throw err;
          return (scores as string[]).filter((_, j) => j % 2 === 1).map(Number);
        });
      } catch (err) {
        this.redis.markFailed(err);
      }
    }
    if (this.local.size > 100_000) this.evictExpired(now);
    return ids.map((id) => {
      const entries = this.local.get(id) ?? new Map<string, number>();
      for (const [m, t] of entries) if (t <= now - WINDOW_MS) entries.delete(m);
      const times = [...entries.values()].sort((a, b) => a - b);
      entries.set(member, now);
      this.local.set(id, entries);
      return times;
    });
  }

  private async forget(ids: string[], member: string): Promise<void> {
    if (this.redis?.usable) {
      try {
        const multi = this.redis.client.multi();
        for (const id of ids) multi.zrem(`signin:${id}`, member);
        await multi.exec();
      } catch (err) {
        this.redis.markFailed(err);
      }
    }
    // Also here: the attempt may have been recorded in this process while Redis was away.
    for (const id of ids) this.local.get(id)?.delete(member);
  }

  private evictExpired(now: number): void {
    for (const [id, entries] of this.local) {
      let live = false;
      for (const t of entries.values()) if (t > now - WINDOW_MS) live = true;
      if (!live) this.local.delete(id);
    }
  }
}
