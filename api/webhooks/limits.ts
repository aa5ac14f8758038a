/**
 * Webhook limits per organization (CONTRACT §12, "Limits per organization":
 * one organization must never hurt another). The endpoint cap is the
 * store's (`webhooks.create` refuses past it, atomically); the live-secret
 * cap is secrets.ts's; this module holds the cap's default and the rate of
 * changes: endpoint creation, tests and secret rotations together, at most
 * CHANGES_PER_MINUTE a minute per organization, through the same limiter as
 * the API's (api/limits/rate-limit.ts: shared in Redis with REDIS_URL, in
 * process otherwise or while Redis is away).
 */
import { DEFAULT_WEBHOOK_MAX_ENDPOINTS } from '../config.ts';
import { ApiError, rateLimited } from '../errors.ts';
import { Limiter, type LimiterRedis } from '../limits/rate-limit.ts';

/** WEBHOOK_MAX_ENDPOINTS when unset. */
export const DEFAULT_MAX_ENDPOINTS = DEFAULT_WEBHOOK_MAX_ENDPOINTS;

/** Endpoint creations, tests and secret rotations per organization per minute, together. */
export const CHANGES_PER_MINUTE = 30;

/**
 * The refusal of an endpoint past the organization's cap: a 409 with the cap and what to do (no field named: the
 * dashboard shows it above the form, not as a fault of the URL).
 */
export const tooManyEndpoints = (max: number): ApiError =>
  new ApiError(409, 'webhook_limit_reached', `An organization has at most ${max} webhook endpoints. Remove one before adding another.`);

/** Counts an organization's webhook changes; `take` throws the 429 (with Retry-After) past the rate. */
export class ChangeLimiter {
  private readonly limiter: Limiter;

  constructor(redis: LimiterRedis | null, private readonly perMinute = CHANGES_PER_MINUTE) {
    // `id` is koa-ratelimit's, for a middleware: this limiter is only asked through `decide`.
    this.limiter = new Limiter({ name: 'webhook-changes', durationMs: 60_000, id: () => false, headers: false, redis });
  }

  /** Counts one change of `orgId`'s webhooks; past the rate, the 429 error (nothing counted). */
  async take(orgId: string): Promise<void> {
    const decision = await this.limiter.decide(orgId, this.perMinute);
    if (!decision.admitted) {
      throw rateLimited(decision.retryAfter, `An organization may create, test or rotate the secret of webhook endpoints at most ${this.perMinute} times a minute.`);
    }
  }

  close(): void {
    this.limiter.close();
  }
}
