/** Health, readiness and the OpenAPI document: no key needed. */
import type { Context } from 'koa';
import type { Config } from '../config.ts';
import { serviceUnavailable } from '../errors.ts';
import type { RedisHealth } from '../limits/redis-health.ts';
import { openApiDocument } from '../openapi/document.ts';
import type { Store } from '../store/types.ts';
import type { Metrics } from './metrics.ts';

export function healthz() {
  return async function healthz(ctx: Context): Promise<void> {
    ctx.body = { status: 'ok' };
  };
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

/** 200 when the store and (if configured) Redis answer; else 503 naming what is down. */
export function readyz(deps: { store: Store; redis: RedisHealth | null; metrics: Metrics; lifecycle: { draining: boolean } }) {
  return async function readyz(ctx: Context): Promise<void> {
    if (deps.lifecycle.draining) {
      throw serviceUnavailable('Not ready: shutting down.', [{ component: 'process', message: 'shutting down' }]);
    }
    const down: string[] = [];
    const checks: Record<string, 'ok' | 'down'> = {};
    try {
      await withTimeout(deps.store.ping(), 1000);
      checks.store = 'ok';
    } catch {
      checks.store = 'down';
      down.push(`store (${deps.store.kind})`);
    }
    if (deps.redis) {
      const stop = deps.metrics.redisLatency.startTimer();
      try {
        await withTimeout(deps.redis.ping(), 1000);
        checks.redis = 'ok';
      } catch {
        checks.redis = 'down';
        down.push('redis (rate limits fall back to per-process limits)');
      } finally {
        stop();
      }
    }
    if (down.length > 0) {
      const details = Object.entries(checks)
        .filter(([, state]) => state === 'down')
        .map(([component]) => ({ component, message: 'not answering' }));
      throw serviceUnavailable(`Not ready: ${down.join(', ')} not answering.`, details);
    }
    ctx.body = { status: 'ready', checks };
  };
}

export function openApiJson(config: Config) {
  const body = openApiDocument({ serverUrl: `${config.publicUrl}/api/v1` });
  return async function openApiJson(ctx: Context): Promise<void> {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  };
}
