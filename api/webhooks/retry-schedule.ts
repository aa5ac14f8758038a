/**
 * What happens after an attempt (CONTRACT §12), as pure functions of the
 * attempt's result, the attempt count, a clock and a random source.
 *
 * A failed message is tried again after about 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h and 10 h: eight attempts over about 28 hours, then it is `failed`.
 * Each wait is spread by ±20 % so that the retries of many messages failed by
 * the same outage do not arrive together. A `Retry-After` from the endpoint is
 * honoured as "not before", up to MAX_RETRY_AFTER_MS (an endpoint cannot park
 * a message for longer than the schedule's own longest wait).
 */
import type { DeliveryResult } from './deliver.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait before the 2nd, 3rd, … 8th attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;
export const MAX_RETRY_AFTER_MS = 10 * HOUR;

/** After a failed attempt: when to try again, or `failed` once the schedule is spent. */
export type RetryDecision = { kind: 'retry'; at: Date } | { kind: 'failed' };

/**
 * `attempts` counts the attempts made so far, this one included (1 after the
 * first). `random` returns [0, 1) like Math.random.
 */
export function nextRetry(attempts: number, retryAfterMs: number | null, now: Date, random: () => number = Math.random): RetryDecision {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return { kind: 'failed' };
  const jittered = base * (1 - JITTER + 2 * JITTER * random());
  const wait = Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return { kind: 'retry', at: new Date(now.getTime() + Math.round(wait)) };
}

/** The state of a message after an attempt. */
export type MessageOutcome =
  | { status: 'delivered' }
  /**
   * After a 410 (the endpoint disabled by it) the message stays due at the
   * attempt's time, never unscheduled: nothing sends to a disabled endpoint,
   * and once it is enabled again the message goes with the rest of the
   * backlog, even when the answer is written after a person's Enable.
   */
  | { status: 'pending'; nextAttemptAt: Date }
  | { status: 'failed' };

/** A 410 Gone tells us the endpoint is no more: it is disabled at once (see endpointAfterAttempt). */
export function isGone(result: DeliveryResult): boolean {
  return result.statusCode === 410;
}

export function messageAfterAttempt(result: DeliveryResult, attempts: number, now: Date, random: () => number = Math.random): MessageOutcome {
  if (result.delivered) return { status: 'delivered' };
  if (isGone(result)) return { status: 'pending', nextAttemptAt: now };
  const decision = nextRetry(attempts, result.retryAfterMs, now, random);
  return decision.kind === 'failed' ? { status: 'failed' } : { status: 'pending', nextAttemptAt: decision.at };
}
