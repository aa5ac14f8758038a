/**
 * Prometheus metrics (prom-client), served on the admin port: requests and
 * latency by route and status, rate-limit rejections, store and Redis latency,
 * and the client's default process metrics. One registry per app instance so
 * that tests running several instances do not collide. The series observed on
 * every request are series-metrics.ts's (same exposition, a fraction of the cost).
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type HistogramSeries, SeriesCounter, SeriesHistogram } from './series-metrics.ts';
import type { Store } from '../store/types.ts';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new SeriesCounter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new SeriesHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and status.',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests rejected with 429, by limiter.',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });
  readonly storeLatency = new SeriesHistogram({
    name: 'store_operation_duration_seconds',
    help: 'Store operation latency, by store kind and operation.',
    labelNames: ['store', 'operation'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [this.registry],
  });
  readonly invitationsPurged = new Counter({
    name: 'invitations_purged_total',
    help: 'Ended review invitations removed by retention (INVITATION_RETENTION_DAYS) or `invitations purge`.',
    registers: [this.registry],
  });
  readonly redisLatency = new Histogram({
    name: 'redis_command_duration_seconds',
    help: 'Latency of Redis round trips: rate-limiter calls and readiness pings.',
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
    registers: [this.registry],
  });

  constructor(defaultMetrics = true) {
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one answer under its route template (never the raw path); `started` is process.hrtime.bigint() at its start. */
  record(route: string, method: string, status: number, started: bigint): void {
    const code = String(status);
    this.requests.inc({ route, method, status: code });
    this.latency.observe({ route, status: code }, Number(process.hrtime.bigint() - started) / 1e9);
  }

  /** Wraps every method of the store's sub-stores with a latency observation. */
  instrument(store: Store): Store {
    const observe = this.storeLatency;
    const wrap = <T extends object>(part: T, name: string): T => {
      const wrapped = new Map<PropertyKey, unknown>();
      return new Proxy(part, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof value !== 'function' || UNTIMED.has(prop)) return value;
          let fn = wrapped.get(prop);
          if (!fn) {
            const labels = { store: store.kind, operation: `${name}.${String(prop)}` };
            const child = observe.labels(labels);
            // Not an async wrapper: the caller awaits the store's own promise (no extra turns on every request's path).
            fn = (...args: unknown[]) => {
              const done = observeFrom(child, performance.now());
              const result = (value as (...a: unknown[]) => unknown).apply(target, args);
              if (result instanceof Promise) result.then(done, done);
              else done();
              return result;
            };
            wrapped.set(prop, fn);
          }
          return fn;
        },
      });
    };
    return {
      kind: store.kind,
      orgs: wrap(store.orgs, 'orgs'),
      keys: wrap(store.keys, 'keys'),
      widgets: wrap(store.widgets, 'widgets'),
      reviews: wrap(store.reviews, 'reviews'),
      moderation: wrap(store.moderation, 'moderation'),
      sources: wrap(store.sources, 'sources'),
      webhooks: wrap(store.webhooks, 'webhooks'),
      products: wrap(store.products, 'products'),
      replies: wrap(store.replies, 'replies'),
      collect: wrap(store.collect, 'collect'),
      invitations: wrap(store.invitations, 'invitations'),
      people: store.people,
      // Not timed, passed on: without it the dispatcher would only poll (a second's wait for every event).
      ...(store.outboxWritten ? { outboxWritten: store.outboxWritten } : {}),
      // Passed on too: the automatic-reply rule hears each review upsert through it.
      ...(store.reviewsUpserted ? { reviewsUpserted: store.reviewsUpserted } : {}),
      ping: () => store.ping(),
      close: () => store.close(),
    };
  }
}

/** Store methods that only read a counter in memory: not store operations to time. */
const UNTIMED = new Set<PropertyKey>(['changes', 'generation']);

/** A callback that observes, in seconds, the time from `started` (performance.now()) to its call. */
function observeFrom(child: HistogramSeries, started: number): () => void {
  return () => child.observe((performance.now() - started) / 1000);
}
