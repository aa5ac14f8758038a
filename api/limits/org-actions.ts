/**
 * Actions counted per organization (CONTRACT §11 and §12, "Limits per
 * organization": one organization must never hurt another): a named count of
 * an organization's actions, at most `perMinute` a minute, past which `take`
 * throws the 429 with Retry-After. The counts go through the same limiter as
 * the API's (rate-limit.ts): in Redis with REDIS_URL, so every instance shares
 * one count; in this process otherwise, or while Redis is away.
 *
 * Webhook changes (api/webhooks/limits.ts) and source actions
 * (api/sources/limits.ts) are two counts of this one kind.
 */
import { rateLimited } from '../errors.ts';
import { Limiter, type LimiterRedis } from './rate-limit.ts';

export interface OrgActionsOptions {
  /** The Redis key namespace (`rl:<name>:<orgId>`) and metrics label. */
  name: string;
  perMinute: number;
  /** The 429's message, naming what is counted and the rate. */
  refusal: (perMinute: number) => string;
}

export class OrgActionLimit {
  private readonly limiter: Limiter;

  constructor(
    redis: LimiterRedis | null,
    private readonly options: OrgActionsOptions,
  ) {
    // `id` is koa-ratelimit's, for a middleware: this limiter is only asked through `decide`.
    this.limiter = new Limiter({ name: options.name, durationMs: 60_000, id: () => false, headers: false, redis });
  }

  get perMinute(): number {
    return this.options.perMinute;
  }

  /** Counts one action of `orgId`; past the rate, the 429 error (nothing counted). */
  async take(orgId: string): Promise<void> {
    const wait = await this.admit(orgId);
    if (wait !== null) throw rateLimited(wait, this.options.refusal(this.options.perMinute));
  }

  /** Counts one action of `orgId` and answers null; past the rate, the seconds until it may act again (nothing counted). */
  async admit(orgId: string): Promise<number | null> {
    const decision = await this.limiter.decide(orgId, this.options.perMinute);
    return decision.admitted ? null : decision.retryAfter;
  }

  close(): void {
    this.limiter.close();
  }
}
