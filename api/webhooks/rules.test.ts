/** The retry schedule, Retry-After and the rules that disable an endpoint, with an injected clock and random source. */
import { describe, expect, it } from 'vitest';
import type { DeliveryResult } from './deliver.ts';
import { enableEndpoint, endpointAfterAttempt, shouldDisableForFailures, type EndpointHealth } from './endpoint-health.ts';
import { parseRetryAfter } from './retry-after.ts';
import { MAX_ATTEMPTS, messageAfterAttempt, nextRetry } from './retry-schedule.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const t0 = new Date('2026-11-25T00:00:00Z');
const at = (ms: number): Date => new Date(t0.getTime() + ms);

function result(statusCode: number | null, extra: Partial<DeliveryResult> = {}): DeliveryResult {
  const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
  return { delivered, statusCode, error: delivered ? null : `HTTP ${statusCode}`, retryAfterMs: null, excerpt: '', bodyBytes: 0, truncated: false, ...extra };
}

describe('retry schedule', () => {
  it('waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then fails the message', () => {
    const waits = [];
    for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts++) {
      const d = nextRetry(attempts, null, t0, () => 0.5);
      if (d.kind !== 'retry') throw new Error(`attempt ${attempts} was not retried`);
      waits.push(d.at.getTime() - t0.getTime());
    }
    expect(waits).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(nextRetry(8, null, t0, () => 0.5)).toEqual({ kind: 'failed' });
  });

  it('spreads each wait by ±20 %', () => {
    const low = nextRetry(2, null, t0, () => 0);
    const high = nextRetry(2, null, t0, () => 0.999999);
    expect(low).toEqual({ kind: 'retry', at: at(4 * M) });
    expect(high.kind === 'retry' && high.at.getTime() - t0.getTime()).toBe(6 * M);
  });

  it('honours a Retry-After longer than the scheduled wait, up to 10 h, and never retries sooner than scheduled', () => {
    expect(nextRetry(1, 120 * S, t0, () => 0.5)).toEqual({ kind: 'retry', at: at(120 * S) });
    expect(nextRetry(1, 1 * S, t0, () => 0.5)).toEqual({ kind: 'retry', at: at(5 * S) });
    expect(nextRetry(1, 3 * D, t0, () => 0.5)).toEqual({ kind: 'retry', at: at(10 * H) });
  });

  it('a message is delivered on a 2xx, stays due on a 410 (never unscheduled, never failed by it), and is failed after the eighth failure', () => {
    expect(messageAfterAttempt(result(204), 3, t0)).toEqual({ status: 'delivered' });
    expect(messageAfterAttempt(result(410), 1, t0)).toEqual({ status: 'pending', nextAttemptAt: t0 });
    expect(messageAfterAttempt(result(410), 8, t0)).toEqual({ status: 'pending', nextAttemptAt: t0 });
    expect(messageAfterAttempt(result(500), 1, t0, () => 0.5)).toEqual({ status: 'pending', nextAttemptAt: at(5 * S) });
    expect(messageAfterAttempt(result(null, { error: 'no answer within 15 s' }), 7, t0, () => 0.5)).toEqual({ status: 'pending', nextAttemptAt: at(10 * H) });
    expect(messageAfterAttempt(result(302), 8, t0)).toEqual({ status: 'failed' });
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', t0)).toBe(120 * S);
    expect(parseRetryAfter(' 0 ', t0)).toBe(0);
    expect(parseRetryAfter('Wed, 25 Nov 2026 00:10:00 GMT', t0)).toBe(10 * M);
    expect(parseRetryAfter('Tue, 24 Nov 2026 00:00:00 GMT', t0)).toBe(0);
    expect(parseRetryAfter(['30', '60'], t0)).toBe(30 * S);
  });

  it.each([undefined, '', '-5', '1.5', 'soon', '12 May', 'Nov 25 2026'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, t0)).toBeNull();
  });
});

describe('endpoint health', () => {
  const healthy: EndpointHealth = { state: 'enabled', disabledReason: null, lastDeliveryAt: null, failingSince: null };

  it('a 410 disables the endpoint at once', () => {
    const h = endpointAfterAttempt(healthy, result(410), t0);
    expect(h).toMatchObject({ state: 'disabled', disabledReason: 'the endpoint answered 410 Gone', failingSince: t0 });
  });

  it('is disabled when every delivery failed for 5 days, and not a moment before', () => {
    let h = endpointAfterAttempt(healthy, result(500), t0);
    h = endpointAfterAttempt(h, result(null), at(2 * D));
    h = endpointAfterAttempt(h, result(503), at(5 * D - 1));
    expect(h).toMatchObject({ state: 'enabled', failingSince: t0 });
    expect(shouldDisableForFailures(h.failingSince, at(5 * D - 1))).toBe(false);
    expect(shouldDisableForFailures(h.failingSince, at(5 * D))).toBe(true);
    h = endpointAfterAttempt(h, result(500), at(5 * D));
    expect(h).toMatchObject({ state: 'disabled', disabledReason: 'every delivery failed since 2026-11-25T00:00:00.000Z (5 days)' });
  });

  it('one success restarts the 5 days', () => {
    let h = endpointAfterAttempt(healthy, result(500), t0);
    h = endpointAfterAttempt(h, result(200), at(4 * D));
    expect(h).toMatchObject({ failingSince: null, lastDeliveryAt: at(4 * D) });
    h = endpointAfterAttempt(h, result(500), at(4 * D + H));
    h = endpointAfterAttempt(h, result(500), at(8 * D));
    expect(h).toMatchObject({ state: 'enabled', failingSince: at(4 * D + H) });
  });

  it('enabling again clears the reason and the failing clock', () => {
    const disabled = endpointAfterAttempt(healthy, result(410), t0);
    expect(enableEndpoint(disabled)).toEqual({ state: 'enabled', disabledReason: null, lastDeliveryAt: null, failingSince: null });
  });
});
