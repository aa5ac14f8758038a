/**
 * Failed sign-ins: 10 per email and 10 per client address in any 15 minutes
 * (a sliding window), then 429 with Retry-After until the oldest failure
 * leaves the window. Only failures count; a correct password after the limit
 * is refused too (otherwise the limit would not stop guessing).
 *
 * With REDIS_URL the failures live in Redis (one sorted set per email and per
 * address, shared by every instance); without it, or while Redis is away, in
 * this process. A Redis error never becomes a 500 here.
 */
import { randomBytes } from 'node:crypto';
import type { RedisHealth } from '../limits/redis-health.ts';

export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

export class SignInThrottle {
  private readonly local = new Map<string, number[]>();

  constructor(private readonly redis: RedisHealth | null) {}

  /** Ids a sign-in attempt is counted under. */
  static ids(email: string, address: string): string[] {
    return [`email:${email.trim().toLowerCase()}`, `ip:${address}`];
  }

  /** Seconds until an attempt is allowed again; 0 when it is allowed now. */
  async retryAfter(ids: string[], now = Date.now()): Promise<number> {
    let waitMs = 0;
    for (const id of ids) {
      const times = await this.recent(id, now);
      if (times.length >= MAX_FAILURES) waitMs = Math.max(waitMs, times[times.length - MAX_FAILURES]! + WINDOW_MS - now);
    }
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
  }

  async fail(ids: string[], now = Date.now()): Promise<void> {
    if (this.redis?.usable) {
      try {
        const multi = this.redis.client.multi();
        for (const id of ids) {
          const key = `signin:${id}`;
          multi.zadd(key, now, `${now}:${randomBytes(4).toString('hex')}`);
          multi.zremrangebyscore(key, 0, now - WINDOW_MS);
          multi.pexpire(key, WINDOW_MS);
        }
        await multi.exec();
        return;
      } catch (err) {
        this.redis.markFailed(err);
      }
    }
    for (const id of ids) this.local.set(id, [...(this.local.get(id) ?? []).filter((t) => t > now - WINDOW_MS), now]);
    if (this.local.size > 100_000) for (const [id, t] of this.local) if (t[t.length - 1]! <= now - WINDOW_MS) this.local.delete(id);
  }

  /** Failure times within the window, oldest first. */
  private async recent(id: string, now: number): Promise<number[]> {
    if (this.redis?.usable) {
      try {
        const scores = await this.redis.client.zrangebyscore(`signin:${id}`, now - WINDOW_MS + 1, '+inf', 'WITHSCORES');
        return scores.filter((_, i) => i % 2 === 1).map(Number);
      } catch (err) {
        this.redis.markFailed(err);
      }
    }
    return (this.local.get(id) ?? []).filter((t) => t > now - WINDOW_MS);
  }
}
