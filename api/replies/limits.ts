/**
 * Reply actions per organization (CONTRACT §15 and §12, "Limits per
 * organization"): publishing (an approval included) and deleting a reply count
 * together, at most REPLY_ACTIONS_PER_MINUTE a minute per organization; past
 * it, a 429 with Retry-After, from the dashboard, the admin API and the CLI
 * alike (they all call RepliesService). Counted in Redis with REDIS_URL (every
 * instance shares one count), in process otherwise (api/limits/org-actions.ts,
 * the same limit as the source actions' and the webhook changes'). Drafts,
 * edits and cancels call no platform and are not counted.
 */
import { OrgActionLimit } from '../limits/org-actions.ts';
import type { LimiterRedis } from '../limits/rate-limit.ts';

export const REPLY_ACTIONS_PER_MINUTE = 60;
/**
 * The automatic-reply rule's own budget: its replies are posted at most this
 * many a minute per organization, counted apart from the people's publishes
 * and deletes (which they never use up). Past it, a rule reply waits (its
 * time moved on), never dropped.
 */
export const AUTO_REPLIES_PER_MINUTE = 30;

export class ReplyActionLimiter extends OrgActionLimit {
  constructor(redis: LimiterRedis | null, perMinute = REPLY_ACTIONS_PER_MINUTE, name = 'reply-actions') {
    super(redis, {
      name,
      perMinute,
      refusal: (n) => `An organization may publish or delete replies at most ${n} times a minute.`,
    });
  }
}
