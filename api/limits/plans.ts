/** Plans and what they allow (spec, Authentication §8). */
import type { Organization, Plan } from '../store/types.ts';

interface PlanRules {
  apiAccess: boolean;
  /** Requests per minute for the whole organization; null = no API access at all. */
  requestsPerMinute: number | null;
}

export const PLAN_RULES: Record<Plan, PlanRules> = {
  free: { apiAccess: false, requestsPerMinute: null },
  starter: { apiAccess: false, requestsPerMinute: null },
  growth: { apiAccess: true, requestsPerMinute: 60 },
  agency: { apiAccess: true, requestsPerMinute: 200 },
};

export function hasApiAccess(org: Organization): boolean {
  return PLAN_RULES[org.plan].apiAccess;
}

/** The organization's requests per minute: its override, else its plan's. */
export function requestsPerMinute(org: Organization): number {
  return org.rateLimit ?? PLAN_RULES[org.plan].requestsPerMinute ?? 0;
}
