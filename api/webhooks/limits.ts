/**
 * Webhook limits per organization (CONTRACT §12, "Limits per organization":
 * one organization must never hurt another). The endpoint cap is the
 * store's (`webhooks.create` refuses past it, atomically); the live-secret
 * cap is secrets.ts's; this module holds the cap's default and the rate of
 * changes: endpoint creation, tests, replays, enabling, disabling and secret
 * rotations together, at most CHANGES_PER_MINUTE a minute per organization,
 * through the per-organization action limit (api/limits/org-actions.ts: shared
 * in Redis with REDIS_URL, in process otherwise or while Redis is away).
 */
import { DEFAULT_WEBHOOK_MAX_ENDPOINTS } from '../config.ts';
import { ApiError } from '../errors.ts';
import { OrgActionLimit } from '../limits/org-actions.ts';
import type { LimiterRedis } from '../limits/rate-limit.ts';

/** WEBHOOK_MAX_ENDPOINTS when unset. */
export const DEFAULT_MAX_ENDPOINTS = DEFAULT_WEBHOOK_MAX_ENDPOINTS;

/** Endpoint creations, tests, replays, enables, disables and secret rotations per organization per minute, together. */
export const CHANGES_PER_MINUTE = 30;

/**
 * The refusal of an endpoint past the organization's cap: a 409 with the cap and what to do (no field named: the
 * dashboard shows it above the form, not as a fault of the URL).
 */
export const tooManyEndpoints = (max: number): ApiError =>
  new ApiError(409, 'webhook_limit_reached', `An organization has at most ${max} webhook endpoints. Remove one before adding another.`);

/** Counts an organization's webhook changes; `take` throws the 429 (with Retry-After) past the rate. */
export class ChangeLimiter extends OrgActionLimit {
  constructor(redis: LimiterRedis | null, perMinute = CHANGES_PER_MINUTE) {
    super(redis, {
      name: 'webhook-changes',
      perMinute,
      refusal: (n) => `An organization may create, test, replay, enable, disable or rotate the secret of webhook endpoints at most ${n} times a minute.`,
    });
  }
}
