/**
 * Rate limiting with koa-ratelimit.
 *
 * How requests are keyed: by organization (all its keys count together) for the
 * API, by client address for failed authentication and the public widget data.
 *
 * Where the counts live: with REDIS_URL, in Redis (koa-ratelimit's sliding-window
 * log, one sorted set per id, updated by one Lua script), so every instance
 * shares one window, atomically, and a restart keeps it. The calls made in
 * two turns of the event loop go to Redis together (BatchedRateLimitDb). Without Redis, or
 * while Redis is away, in this process (a fixed
 * window kept here): the insurance limiter. A Redis error never becomes a 500.
 *
 * koa-ratelimit takes `max` per middleware instance, so one instance is kept
 * per limit value.
 */
import type { Redis } from 'ioredis';
import ratelimit from 'koa-ratelimit';
import type { Context, Middleware, Next } from 'koa';
import { rateLimited } from '../errors.ts';
import type { BatchedRateLimitDb } from './batched-redis-driver.ts';
import type { RedisHealth } from './redis-health.ts';

/** Redis for the limiters: its health, and the batching `db` koa-ratelimit talks to. */
export interface LimiterRedis {
  health: RedisHealth;
  db: BatchedRateLimitDb;
}

export interface LimitOptions {
  /** Redis key namespace and metrics label. */
  name: string;
  durationMs: number;
  /** The id requests are counted under; false = not limited. */
  id: (ctx: Context) => string | false;
  /** Send X-RateLimit-* and RateLimit-* headers on every answer. */
  headers: boolean;
  redis: LimiterRedis | null;
  onLimited?: (ctx: Context) => void;
  message?: string;
  /** Most ids the in-process limiter keeps windows for (MAX_WINDOWS unless told). */
  maxWindows?: number;
  /**
   * `decide` admits an id at once while it has used less than half its limit,
   * counted in Redis right after (BatchedRateLimitDb.admitAhead): for limits
   * where each id makes few requests (a visitor's address), so waiting for Redis
   * would be the request's largest cost. From half on, exact as always.
   */
  countAfter?: boolean;
}

/**
 * A hard cap on the in-process windows: many client addresses (a botnet, or
 * IPv4 addresses one by one) must not grow memory without bound. At the cap,
 * expired windows go first, then the oldest: an evicted id starts a new window,
 * which costs an attacker as many distinct addresses as the cap.
 */
export const MAX_WINDOWS = 100_000;

/** One request's answer from a limiter: admitted or not, and what its headers say. */
export interface Decision {
  admitted: boolean;
  max: number;
  remaining: number;
  /** Epoch seconds when the window frees a place. */
  resetSeconds: number;
  /** Seconds to wait, when refused. */
  retryAfter: number;
}

/** X-RateLimit-* and the IETF draft's RateLimit-Policy / RateLimit fields. */
export function rateLimitHeaders(max: number, remaining: number, resetSeconds: number, durationMs: number): [string, string][] {
  const secondsLeft = Math.max(0, resetSeconds - Math.floor(Date.now() / 1000));
  return [
    ['X-RateLimit-Limit', String(max)],
    ['X-RateLimit-Remaining', String(remaining)],
    ['X-RateLimit-Reset', String(resetSeconds)],
    ['RateLimit-Policy', `${max};w=${Math.round(durationMs / 1000)}`],
    ['RateLimit', `limit=${max}, remaining=${remaining}, reset=${secondsLeft}`],
  ];
}

/** The in-process insurance limiter's state for one id: a fixed window. */
interface Window {
  count: number;
  /** Epoch ms. */
  reset: number;
}

export class Limiter {
  /** koa-ratelimit's Redis middleware, one per limit value (its `max` is fixed per instance). */
  private readonly redisInstances = new Map<number, Middleware>();
  private readonly windows = new Map<string, Window>();
  private readonly policies = new Map<number, string>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: LimitOptions) {
    // Expired windows are swept so that many client addresses cannot grow memory forever.
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [id, w] of this.windows) if (w.reset <= now) this.windows.delete(id);
    }, Math.max(options.durationMs, 10_000));
    this.sweeper.unref();
  }

  private redisFor(max: number): Middleware | null {
    if (!this.options.redis) return null;
    let found = this.redisInstances.get(max);
    if (!found) {
      found = ratelimit({
        driver: 'redis',
        // koa-ratelimit's types ask for an ioredis client; its driver only calls `ratelimiter` on it.
        db: this.options.redis.db as unknown as Redis,
        duration: this.options.durationMs,
        max,
        id: this.options.id,
        disableHeader: !this.options.headers,
        namespace: `rl:${this.options.name}`,
      });
      this.redisInstances.set(max, found);
    }
    return found;
  }

  /**
   * The in-process limiter (no Redis, or Redis away): a fixed window per id
   * that keeps a count, so a limit changed mid-window applies at once.
   */
  private async inProcess(ctx: Context, max: number, inner: Next): Promise<void> {
    const id = this.options.id(ctx);
    if (id === false) return inner();
    const decision = this.decideInProcess(id, max);
    this.setHeaders(ctx, max, decision.remaining, decision.resetSeconds);
    if (!decision.admitted) {
      ctx.set('Retry-After', String(decision.retryAfter));
      return;
    }
    await inner();
  }

  /** The in-process window's answer for `id`, counting the request when admitted. */
  private decideInProcess(id: string, max: number): Decision {
    const now = Date.now();
    let w = this.windows.get(id);
    if (!w || w.reset <= now) {
      w = { count: 0, reset: now + this.options.durationMs };
      // Deleted and set again, so that the Map's order stays the order windows started in.
      this.windows.delete(id);
      this.makeRoom(now);
      this.windows.set(id, w);
    }
    const resetSeconds = Math.ceil(w.reset / 1000);
    if (w.count >= max) return { admitted: false, max, remaining: 0, resetSeconds, retryAfter: Math.max(1, Math.ceil((w.reset - now) / 1000)) };
    w.count++;
    return { admitted: true, max, remaining: max - w.count, resetSeconds, retryAfter: 0 };
  }

  /**
   * The same decision as `run` takes, for a request answered outside Koa (the
   * public fast path, api/public-path.ts): the same Redis key and script as
   * koa-ratelimit's driver (through the batching db), or the in-process window
   * while Redis is away. The request is counted when admitted, as `run` counts it.
   */
  async decide(id: string, max: number): Promise<Decision> {
    const redis = this.options.redis;
    if (redis?.health.usable) {
      try {
        // What async-ratelimiter (koa-ratelimit's Redis driver) sends, under the namespace redisFor gives it.
        const key = `rl:${this.options.name}:${id}`;
        const now = Date.now();
        const ahead = this.options.countAfter ? redis.db.admitAhead(key, now, this.options.durationMs, max) : null;
        const [left, reset] = ahead ?? (await redis.db.ratelimiter(key, now, this.options.durationMs, max, '0'));
        const resetSeconds = Math.ceil(reset);
        if (left > 0) return { admitted: true, max, remaining: left - 1, resetSeconds, retryAfter: 0 };
        return { admitted: false, max, remaining: 0, resetSeconds, retryAfter: Math.max(1, Math.ceil(resetSeconds - Date.now() / 1000)) };
      } catch (err) {
        redis.health.markFailed(err);
      }
    }
    return this.decideInProcess(id, max);
  }

  /**
   * Finishes in Koa a request whose decision `decide` already took (the fast
   * path handed it over): the same headers, and the same 429, without counting
   * it twice.
   */
  async runDecided(ctx: Context, decision: Decision, next: Next): Promise<void> {
    this.setHeaders(ctx, decision.max, decision.remaining, decision.resetSeconds);
    if (decision.admitted) return next();
    this.options.onLimited?.(ctx);
    throw rateLimited(decision.retryAfter, this.options.message);
  }

  /** The rate-limit header fields of an answer (none when this limiter sends none). */
  headerFields(decision: Decision): [string, string][] {
    return this.options.headers ? rateLimitHeaders(decision.max, decision.remaining, decision.resetSeconds, this.options.durationMs) : [];
  }

  /** Ids with an in-process window now. */
  get trackedIds(): number {
    return this.windows.size;
  }

  private makeRoom(now: number): void {
    const cap = this.options.maxWindows ?? MAX_WINDOWS;
    if (this.windows.size < cap) return;
    for (const [id, w] of this.windows) if (w.reset <= now) this.windows.delete(id);
    // Still full: the oldest windows go (the Map iterates in insertion order).
    for (const id of this.windows.keys()) {
      if (this.windows.size < cap) break;
      this.windows.delete(id);
    }
  }

  /** Runs `next` when within `max` per window; otherwise throws the 429 error. */
  async run(ctx: Context, max: number, next: Next): Promise<void> {
    const redis = this.redisFor(max);
    let admitted = false;
    const health = this.options.redis?.health;
    if (redis && health?.usable) {
      try {
        // Inline callbacks here and below, not async themselves (no promise of their own): this runs on every request.
        await redis(ctx, () => {
          admitted = true;
          this.normalizeRedisHeaders(ctx, max);
          return next();
        });
        if (!admitted) this.normalizeRedisHeaders(ctx, max);
      } catch (err) {
        if (admitted) throw err;
        // Redis failed before admitting: count this request in-process instead.
        health.markFailed(err);
        await this.inProcess(ctx, max, async () => {
          admitted = true;
          await next();
        });
      }
    } else {
      await this.inProcess(ctx, max, async () => {
        admitted = true;
        await next();
      });
    }
    if (!admitted) {
      this.options.onLimited?.(ctx);
      const reset = Number(ctx.response.get('X-RateLimit-Reset'));
      const retryAfter = Number.isFinite(reset) && reset > 0 ? Math.max(1, Math.ceil(reset - Date.now() / 1000)) : Math.ceil(this.options.durationMs / 1000);
      throw rateLimited(retryAfter, this.options.message);
    }
  }

  /**
   * koa-ratelimit's Redis driver has set the X-RateLimit-* fields: add the IETF
   * draft's two, and make Reset and Remaining whole numbers if they are not
   * (the batch script's reset is whole seconds already). On every request.
   */
  private normalizeRedisHeaders(ctx: Context, max: number): void {
    if (!this.options.headers) return;
    const res = ctx.res;
    const rawReset = Number(res.getHeader('x-ratelimit-reset'));
    const rawRemaining = Number(res.getHeader('x-ratelimit-remaining'));
    const reset = Math.ceil(rawReset || Date.now() / 1000 + this.options.durationMs / 1000);
    const remaining = Math.max(0, rawRemaining || 0);
    if (reset !== rawReset) res.setHeader('X-RateLimit-Reset', String(reset));
    if (remaining !== rawRemaining) res.setHeader('X-RateLimit-Remaining', String(remaining));
    if (Number(res.getHeader('x-ratelimit-limit')) !== max) res.setHeader('X-RateLimit-Limit', String(max));
    res.setHeader('RateLimit-Policy', this.policy(max));
    res.setHeader('RateLimit', `limit=${max}, remaining=${remaining}, reset=${Math.max(0, reset - Math.floor(Date.now() / 1000))}`);
  }

  /** RateLimit-Policy's value for `max`, made once per limit value. */
  private policy(max: number): string {
    let value = this.policies.get(max);
    if (value === undefined) {
      value = rateLimitHeaders(max, 0, 0, this.options.durationMs).find(([name]) => name === 'RateLimit-Policy')![1];
      this.policies.set(max, value);
    }
    return value;
  }

  private setHeaders(ctx: Context, max: number, remaining: number, resetSeconds: number): void {
    if (!this.options.headers) return;
    for (const [name, value] of rateLimitHeaders(max, remaining, resetSeconds, this.options.durationMs)) ctx.set(name, value);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
