/**
 * Rate limiting with koa-ratelimit.
 *
 * How requests are keyed: by organization (all its keys count together) for the
 * API, by client address for failed authentication and the public widget data.
 *
 * Where the counts live: with REDIS_URL, in Redis (koa-ratelimit's sliding-window
 * log, one sorted set per id, updated by one Lua script), so every instance
 * shares one window, atomically, and a restart keeps it. Without Redis, or
 * while Redis is away, in this process (koa-ratelimit's memory driver, a fixed
 * window): the insurance limiter. A Redis error never becomes a 500.
 *
 * koa-ratelimit takes `max` per middleware instance, so one instance is kept
 * per limit value.
 */
import ratelimit from 'koa-ratelimit';
import type { Context, Middleware, Next } from 'koa';
import { rateLimited } from '../errors.ts';
import type { RedisHealth } from './redis-health.ts';

export interface LimitOptions {
  /** Redis key namespace and metrics label. */
  name: string;
  durationMs: number;
  /** The id requests are counted under; false = not limited. */
  id: (ctx: Context) => string | false;
  /** Send X-RateLimit-* and RateLimit-* headers on every answer. */
  headers: boolean;
  redis: RedisHealth | null;
  onLimited?: (ctx: Context) => void;
  /** Seconds a Redis limiter call took (metrics). */
  onRedisLatency?: (seconds: number) => void;
  message?: string;
}

interface Instances {
  redis: Middleware | null;
  memory: Middleware;
}

/** Expired fixed windows are swept so that many client addresses cannot grow memory forever. */
function sweep(db: Map<string, { reset: number }>): void {
  const now = Date.now() / 1000;
  for (const [key, entry] of db) if (entry.reset < now) db.delete(key);
}

export class Limiter {
  private readonly instances = new Map<number, Instances>();
  private readonly memoryDb = new Map<string, { reset: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: LimitOptions) {
    this.sweeper = setInterval(() => sweep(this.memoryDb), Math.max(options.durationMs, 10_000));
    this.sweeper.unref();
  }

  private forMax(max: number): Instances {
    let found = this.instances.get(max);
    if (!found) {
      const common = {
        duration: this.options.durationMs,
        max,
        id: this.options.id,
        disableHeader: !this.options.headers,
        namespace: `rl:${this.options.name}`,
      };
      found = {
        redis: this.options.redis ? ratelimit({ ...common, driver: 'redis', db: this.options.redis.client }) : null,
        memory: ratelimit({ ...common, driver: 'memory', db: this.memoryDb as Map<string, unknown> }),
      };
      this.instances.set(max, found);
    }
    return found;
  }

  /** Runs `next` when within `max` per window; otherwise throws the 429 error. */
  async run(ctx: Context, max: number, next: Next): Promise<void> {
    const { redis, memory } = this.forMax(max);
    let admitted = false;
    let started = 0n;
    const observe = (): void => {
      if (started !== 0n) this.options.onRedisLatency?.(Number(process.hrtime.bigint() - started) / 1e9);
      started = 0n;
    };
    const inner = async (): Promise<void> => {
      admitted = true;
      observe();
      this.normalizeHeaders(ctx, max);
      await next();
    };
    const health = this.options.redis;
    if (redis && health?.usable) {
      try {
        started = process.hrtime.bigint();
        await redis(ctx, inner);
        observe();
      } catch (err) {
        if (admitted) throw err;
        // Redis failed before admitting: count this request in-process instead.
        health.markFailed(err);
        await memory(ctx, inner);
      }
    } else {
      await memory(ctx, inner);
    }
    if (!admitted) {
      this.normalizeHeaders(ctx, max);
      this.options.onLimited?.(ctx);
      const retryAfter = Math.max(1, Number(ctx.response.get('Retry-After')) || Math.ceil(this.options.durationMs / 1000));
      throw rateLimited(retryAfter, this.options.message);
    }
  }

  /**
   * koa-ratelimit's memory driver reports the reset as fractional seconds and
   * Retry-After can round to 0; answer integers, and the IETF draft fields too.
   */
  private normalizeHeaders(ctx: Context, max: number): void {
    if (!this.options.headers) return;
    const nowSeconds = Date.now() / 1000;
    const reset = Math.ceil(Number(ctx.response.get('X-RateLimit-Reset')) || nowSeconds + this.options.durationMs / 1000);
    const remaining = Math.max(0, Number(ctx.response.get('X-RateLimit-Remaining')) || 0);
    const window = Math.round(this.options.durationMs / 1000);
    const secondsLeft = Math.max(0, reset - Math.floor(nowSeconds));
    ctx.set('X-RateLimit-Limit', String(max));
    ctx.set('X-RateLimit-Remaining', String(remaining));
    ctx.set('X-RateLimit-Reset', String(reset));
    ctx.set('RateLimit-Policy', `${max};w=${window}`);
    ctx.set('RateLimit', `limit=${max}, remaining=${remaining}, reset=${secondsLeft}`);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
