/** The per-organization API limit: the organization's override, else its plan's. */
import type { Context, Next } from 'koa';
import type { AuthState } from '../auth/authenticate.ts';
import { requestsPerMinute } from './plans.ts';
import type { Limiter } from './rate-limit.ts';

export function orgRateLimit(limiter: Limiter) {
  return function orgRateLimit(ctx: Context, next: Next): Promise<void> {
    const { org } = ctx.state.auth as AuthState;
    return limiter.run(ctx, requestsPerMinute(org), next);
  };
}
