/**
 * When an endpoint is disabled by what its deliveries show (CONTRACT §12), as
 * a pure function of its health, one attempt's result and a clock:
 *
 * - a 410 Gone disables it at once;
 * - an endpoint whose every delivery failed for 5 days is disabled: the clock
 *   starts at the first failure after a success (`failingSince`) and any
 *   success stops it.
 *
 * Re-enabling (a person's act) clears `failingSince`, so the 5 days count again.
 */
import type { DeliveryResult } from './deliver.ts';
import { isGone } from './retry-schedule.ts';

export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 3600 * 1000;

export interface EndpointHealth {
  state: 'enabled' | 'disabled';
  /** Why it was disabled, for the dashboard and the audit log; null while enabled. */
  disabledReason: string | null;
  lastDeliveryAt: Date | null;
  /** The first failed attempt since the last delivered one; null when the last attempt was delivered. */
  failingSince: Date | null;
}

export function endpointAfterAttempt(health: EndpointHealth, result: DeliveryResult, now: Date): EndpointHealth {
  if (result.delivered) return { ...health, lastDeliveryAt: now, failingSince: null };
  const failingSince = health.failingSince ?? now;
  if (health.state === 'disabled') return { ...health, failingSince };
  if (isGone(result)) {
    return { ...health, failingSince, state: 'disabled', disabledReason: 'the endpoint answered 410 Gone' };
  }
  if (shouldDisableForFailures(failingSince, now)) {
    return { ...health, failingSince, state: 'disabled', disabledReason: `every delivery failed since ${failingSince.toISOString()} (5 days)` };
  }
  return { ...health, failingSince };
}

/** Every delivery has failed for 5 days. */
export function shouldDisableForFailures(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= FAILING_DISABLES_AFTER_MS;
}

/** A person enabled it again: pending messages resume and the 5 days count afresh. */
export function enableEndpoint(health: EndpointHealth): EndpointHealth {
  return { ...health, state: 'enabled', disabledReason: null, failingSince: null };
}
