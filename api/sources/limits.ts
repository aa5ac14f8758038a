/**
 * Source actions per organization (CONTRACT §11, "Limits per organization"):
 * every action that calls a platform on a person's (or the operator's)
 * request — connect (its credentials are proved with a platform call),
 * reconnect, Sync now (full or not), the Google Connect start and the listing
 * of Google locations — counts together, at most SOURCE_ACTIONS_PER_MINUTE a
 * minute per organization; past it, a 429 with Retry-After. Counted in Redis
 * with REDIS_URL (every instance shares one count), in process otherwise
 * (api/limits/org-actions.ts, the same limit as the webhook changes'). The
 * scheduled syncs are not counted: the schedule is theirs.
 */
import { OrgActionLimit } from '../limits/org-actions.ts';
import type { LimiterRedis } from '../limits/rate-limit.ts';

export const SOURCE_ACTIONS_PER_MINUTE = 30;

/**
 * Sources one organization may have at most, all platforms together (CONTRACT §15, chains: a
 * location per shop): each is a schedule, a stored credential and calls to its platform. The
 * next connection is `409 source_limit_reached`.
 */
export const MAX_SOURCES = 50;

export class SourceActionLimiter extends OrgActionLimit {
  constructor(redis: LimiterRedis | null, perMinute = SOURCE_ACTIONS_PER_MINUTE) {
    super(redis, {
      name: 'source-actions',
      perMinute,
      refusal: (n) => `An organization may connect, reconnect, sync or start connecting its review sources (and list Google locations) at most ${n} times a minute.`,
    });
  }
}
