/**
 * The public HTTPS app. The order of checks is CONTRACT §3's: HTTPS → key in
 * the query string (frontDoor) → (route) → authentication → plan → rate limit
 * (apiAccess) → parameters (inside each handler). Few Koa layers on purpose:
 * each costs a dispatch and a promise per request (issue 16).
 */
import { METHODS, type RequestListener } from 'node:http';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import Router from '@koa/router';
import type { Config } from './config.ts';
import { methodNotAllowed } from './errors.ts';
import type { Logger } from './logger.ts';
import { compressApi } from './middleware/compression.ts';
import { frontDoor } from './middleware/front-door.ts';
import { TrustedProxies } from './middleware/trusted-proxies.ts';
import { apiAccess } from './auth/authenticate.ts';
import { LastUsedTracker } from './auth/last-used.ts';
import { addressKey } from './limits/address-key.ts';
import { BatchedRateLimitDb } from './limits/batched-redis-driver.ts';
import { Limiter, type LimiterRedis } from './limits/rate-limit.ts';
import type { RedisHealth } from './limits/redis-health.ts';
import type { Metrics } from './ops/metrics.ts';
import { healthz, openApiJson, readyz } from './ops/routes.ts';
import { apiReference } from './openapi/reference.ts';
import { listReviews, reviewStats } from './reviews/routes.ts';
import type { Store } from './store/types.ts';
import { registerWidgetRoutes } from './widgets/routes.ts';
import type { WidgetAssets } from './widgets/assets.ts';
import { PublicWidgetCache } from './widgets/public-answers.ts';
import { handedOverDecision, publicPath } from './public-path.ts';
import { dashboardRouter } from './dashboard/router.ts';
import { createMailer } from './dashboard/mail.ts';
import { favicon } from './site/favicon.ts';
import { landingPage } from './site/landing.ts';
import type { DashboardAssets } from './dashboard/pages.ts';
import { DeviceCookies } from './dashboard/device-cookie.ts';
import { SignInThrottle } from './dashboard/sign-in-throttle.ts';
import type { SessionStore } from './store/people-types.ts';
import type { SourcesService } from './sources/service.ts';
import type { HttpClient } from './sources/http.ts';
import type { WebhooksService } from './webhooks/service.ts';
import type { ProductsService } from './products/service.ts';
import type { RepliesService } from './replies/service.ts';
import type { CollectService } from './collect/service.ts';
import { registerCollectRoutes } from './collect/routes.ts';
import type { InvitationsService } from './invitations/service.ts';
import { registerInvitationRoutes } from './invitations/routes.ts';
import { registerInvitationPageRoutes } from './invitations/page-routes.ts';
import { registerUnsubscribeRoutes } from './mail/unsubscribe-routes.ts';
import { UnsubscribeTokens } from './mail/unsubscribe-token.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  logger: Logger;
  redis: RedisHealth | null;
  metrics: Metrics;
  assets: WidgetAssets;
  /** The dashboard's files, and where sessions live (Redis when configured, else the store). */
  dashboardAssets: DashboardAssets;
  sessions: SessionStore;
  /** SECRETS_KEY (or the key generated into DATA_DIR): the device cookie's key is derived from it. */
  secretsKey: Buffer;
  /** Review sources (the dashboard's Sources page) and the client that calls the platforms (Google's token exchange). */
  sources?: SourcesService;
  platformHttp?: HttpClient;
  /** Webhook endpoints (the dashboard's Webhooks page). */
  webhooks?: WebhooksService;
  /** The product catalog (the dashboard's Products page). */
  products?: ProductsService;
  /** Replies to reviews (the dashboard's JSON routes, CONTRACT §15). */
  replies?: RepliesService;
  /** The review page (CONTRACT §13): /r/… and the dashboard's Collect routes. */
  collect?: CollectService;
  /** Review invitations (CONTRACT §14): the API's /invitations and the links /r/i/…. */
  invitations?: InvitationsService;
  /** Set while shutting down: /readyz then answers 503 so balancers stop sending work. */
  lifecycle?: { draining: boolean };
}

export interface App {
  koa: Koa;
  /**
   * The request handler of the HTTPS server (and of the plain port for trusted
   * proxies): site visitors' plain requests answered by the lean public path,
   * everything else by Koa.
   */
  handler: RequestListener;
  lastUsed: LastUsedTracker;
  close(): Promise<void>;
}

/** Requests per minute per client address on the public widget data endpoint. */
export const PUBLIC_REQUESTS_PER_MINUTE = 600;

export type RouteMethodRegistrar = (path: string, ...middleware: Middleware[]) => void;

/**
 * Every method but GET and HEAD: what a GET path answers 405 to. The 405 route
 * is registered for these only, so a GET request matches one route, not two
 * (the router sets up every matched route's middleware on each request).
 */
const NOT_GET = METHODS.filter((method) => method !== 'GET' && method !== 'HEAD');

export function createApp(deps: AppDeps): App {
  const { config, store, logger, redis, metrics } = deps;
  // Koa's own proxy handling stays off: resolveClient believes forwarded headers only from TRUST_PROXY's addresses.
  const koa = new Koa({ proxy: false });
  const proxies = new TrustedProxies(config.trustProxy);
  koa.silent = true;

  const lastUsed = new LastUsedTracker(store.keys, logger);
  const onLimited = (limiter: string) => () => metrics.rateLimited.inc({ limiter });
  const limiterRedis: LimiterRedis | null = redis && {
    health: redis,
    db: new BatchedRateLimitDb(redis.client, { onLatency: (seconds) => metrics.redisLatency.observe(seconds), onError: (err) => redis.markFailed(err) }),
  };
  const orgLimiter = new Limiter({
    name: 'org',
    durationMs: 60_000,
    id: (ctx) => (ctx.state.auth as { org: { id: string } }).org.id,
    headers: true,
    redis: limiterRedis,
    onLimited: onLimited('org'),
  });
  const authFailures = new Limiter({
    name: 'authfail',
    durationMs: 60_000,
    id: (ctx) => addressKey(ctx.ip),
    headers: false,
    redis: limiterRedis,
    onLimited: onLimited('auth_failures'),
    message: 'Too many failed authentication attempts from this address.',
  });
  const publicLimiter = new Limiter({
    name: 'public',
    durationMs: 60_000,
    id: (ctx) => addressKey(ctx.ip),
    headers: true,
    redis: limiterRedis,
    onLimited: onLimited('public'),
    // Each visitor's address is an id of its own: counted in Redis after the answer, exact from half the limit on.
    countAfter: true,
  });

  // Review page submissions per client address per hour (CONTRACT §13), shared by every instance through Redis.
  const collectLimiter = new Limiter({
    name: 'collect',
    durationMs: 3600_000,
    id: (ctx) => addressKey(ctx.ip),
    headers: false,
    redis: limiterRedis,
    onLimited: onLimited('collect'),
  });

  const router = new Router();
  /** GET (and HEAD) on a path; any other method there is 405 with Allow. */
  const get: RouteMethodRegistrar = (path, ...middleware) => {
    router.get(path, ...middleware);
    router.register(path, NOT_GET, [
      async function notAllowed(): Promise<void> {
        throw methodNotAllowed(['GET', 'HEAD']);
      },
    ]);
  };

  // Compression outermost: it sees the route's body after it is set, and errors pass through it untouched.
  const apiPipeline: Middleware[] = [compressApi(), apiAccess({ store, lastUsed, authFailures, orgLimiter })];

  // For a person with a browser: where things are, and the icon every page asks for. GET only:
  // another method there stays the 404 of any path outside the API (the API's contract).
  router.get('/', landingPage({ demo: store.kind === 'embedded' }));
  router.get('/favicon.svg', favicon());
  router.get('/favicon.ico', favicon());
  get('/healthz', healthz());
  get('/readyz', readyz({ store, redis, metrics, lifecycle: deps.lifecycle ?? { draining: false } }));
  get('/api/v1/openapi.json', openApiJson(config));
  const reference = apiReference();
  get('/api/v1/docs', reference.page);
  get('/api/v1/docs/:file', reference.file);
  get('/api/v1/reviews', ...apiPipeline, listReviews(store));
  get('/api/v1/reviews/stats', ...apiPipeline, reviewStats(store));
  const publicCache = new PublicWidgetCache(store);
  registerWidgetRoutes({
    router,
    get,
    apiPipeline,
    store,
    config,
    assets: deps.assets,
    publicCache,
    publicLimit: function publicRateLimit(ctx: Context, next: Next) {
      // A request the lean public path handed over was counted there already.
      const decided = handedOverDecision(ctx.req);
      return decided ? publicLimiter.runDecided(ctx, decided, next) : publicLimiter.run(ctx, PUBLIC_REQUESTS_PER_MINUTE, next);
    },
  });

  if (deps.invitations) {
    registerInvitationRoutes({ router, apiPipeline, invitations: deps.invitations });
    registerInvitationPageRoutes({ router, invitations: deps.invitations });
    // The unsubscribe link of invitation mails (/r/u/{token}, RFC 8058): the address is unsubscribed from the
    // organization's invitations; the sender checks it before every mail and reminder, so none follows.
    const invitations = deps.invitations;
    registerUnsubscribeRoutes({ router, tokens: new UnsubscribeTokens(deps.secretsKey), organizations: store.orgs, unsubscribes: { markUnsubscribed: (orgId, email) => invitations.unsubscribe(orgId, email) } });
  }
  if (deps.collect) registerCollectRoutes({ router, collect: deps.collect, limiter: collectLimiter, logger });

  koa.use(frontDoor({ logger, metrics, proxies }));
  const dashboard = dashboardRouter({ config, store, sessions: deps.sessions, throttle: new SignInThrottle(redis), devices: new DeviceCookies(deps.secretsKey), ...(config.smtpUrl !== null && { mailer: createMailer(config.smtpUrl, config.publicUrl) }), assets: deps.dashboardAssets, sources: deps.sources, platformHttp: deps.platformHttp, webhooks: deps.webhooks, products: deps.products, replies: deps.replies, collect: deps.collect, invitations: deps.invitations }).routes();
  const routes = router.routes();
  // Every dashboard route is under /dashboard (matched case-insensitively, as the router does): other requests skip its route table.
  koa.use(function routeTables(ctx: Context, next: Next) {
    const path = ctx.path;
    // A path whose second character is not d or D is not the dashboard's (most requests): no lowercased copy made.
    const dashboardPath = (path.charCodeAt(1) | 0x20) === 0x64 && path.slice(0, 10).toLowerCase() === '/dashboard';
    return dashboardPath ? dashboard(ctx as Parameters<typeof dashboard>[0], next) : routes(ctx as Parameters<typeof routes>[0], next);
  });

  const handler = publicPath(
    { store, logger, metrics, proxies, assets: deps.assets, publicCache, publicLimiter, publicLimit: PUBLIC_REQUESTS_PER_MINUTE },
    koa.callback(),
  );

  return {
    koa,
    handler,
    lastUsed,
    async close() {
      orgLimiter.close();
      authFailures.close();
      publicLimiter.close();
      collectLimiter.close();
      // Counts admitted ahead and unused lease places go to Redis before it closes.
      if (limiterRedis) await limiterRedis.db.close();
      await lastUsed.flush();
    },
  };
}
