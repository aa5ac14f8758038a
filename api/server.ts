/**
 * Starts everything one instance runs: the store, Redis (optional), the HTTPS
 * API, the plain-HTTP listener that only refuses, and the loopback admin API.
 * `close()` is the graceful shutdown: stop accepting, finish in-flight
 * requests, flush and close the store.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Config } from './config.ts';
import { createApp, type App } from './app.ts';
import { createAdminApp } from './admin/app.ts';
import { ensureAdminToken } from './admin/token.ts';
import { httpsRequired } from './errors.ts';
import { createStdoutLogger, type Logger } from './logger.ts';
import { createRedis, RedisHealth } from './limits/redis-health.ts';
import { Metrics } from './ops/metrics.ts';
import { openStore } from './store/open.ts';
import { warmUp } from './intelligence/enrich.ts';
import { enrichWorkersFromEnv } from './intelligence/pool.ts';
import type { Store } from './store/types.ts';
import { loadTls } from './tls.ts';
import { answerPlaintextOnTls } from './plaintext-on-tls.ts';
import { TrustedProxies } from './middleware/trusted-proxies.ts';
import { loadWidgetAssets } from './widgets/assets.ts';
import { loadDashboardAssets } from './dashboard/pages.ts';
import { RedisSessions } from './dashboard/redis-sessions.ts';
import { endUploads, isLongUpload } from './dashboard/routes/reviews-import.ts';
import { ensureSecretsKey, SecretBox } from './secrets/secrets.ts';
import { createHostResolver } from './net/host-resolver.ts';
import { HttpClient, trustedCas } from './sources/http.ts';
import { createThreadedDeliveryClient } from './webhooks/delivery-thread.ts';
import { Dispatcher, type DispatchWork } from './webhooks/dispatcher.ts';
import { BullKeyedQueue } from './jobs/keyed-bullmq.ts';
import { InProcessKeyedQueue } from './jobs/keyed-in-process.ts';
import type { KeyedQueue } from './jobs/keyed-work.ts';
import { RepliesService, type ReplyJob } from './replies/service.ts';
import { storeReviewReplies, type ReviewReplies } from './replies/port.ts';
import { WebhooksService } from './webhooks/service.ts';
import { ChangeLimiter } from './webhooks/limits.ts';
import { SourceActionLimiter } from './sources/limits.ts';
import { ReplyActionLimiter, AUTO_REPLIES_PER_MINUTE } from './replies/limits.ts';
import { BatchedRateLimitDb } from './limits/batched-redis-driver.ts';
import { ProductsService } from './products/service.ts';
import { CollectService, type MailWork } from './collect/service.ts';
import { createCollectMailer } from './collect/mail.ts';
import { InvitationsService } from './invitations/service.ts';
import { InvitationSender } from './invitations/sender.ts';
import { InvitationRetention } from './invitations/retention.ts';
import { MailDoor } from './mail/door.ts';
import { createMailSlots } from './mail/slots.ts';
import { dueSources, SourcesService } from './sources/service.ts';
import type { SyncSummary } from './sources/sync.ts';
import { bulkImports } from './jobs/bulk-imports.ts';
import { minuteMs, type Jobs } from './jobs/jobs.ts';
import { BullJobs } from './jobs/bullmq.ts';
import { InProcessJobs } from './jobs/in-process.ts';

export interface Service {
  config: Config;
  store: Store;
  logger: Logger;
  sources: SourcesService;
  /** Review invitations (CONTRACT §14): the one service routes and tests call. */
  invitations: InvitationsService;
  app: App;
  adminToken: string;
  /** Actual ports (useful when 0 was asked for in tests). */
  ports: { https: number; http: number | null; admin: number };
  baseUrl: string;
  adminUrl: string;
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Use this store instead of opening one (tests sharing a store between instances). */
  store?: Store;
  /** Tests ask for port 0 everywhere. */
  ephemeralPorts?: boolean;
  /** The DNS servers outbound names are resolved with (tests: a local DNS server); unset: the system's. */
  dnsServers?: readonly string[];
  /** Where a published reply shows on its review (api/replies/port.ts); the store's reviews unless a test gives its own. */
  reviewReplies?: ReviewReplies;
}

/**
 * Node's whole-request deadline on the HTTPS port (the slow-body defence; a
 * dashboard upload is held to its own pace instead, reviews-import.ts) and how
 * often Node checks it. Tests shorten both.
 */
export const requestDeadline = { ms: 30_000, checkEveryMs: 30_000 };

/** Shutdown budget: SIGTERM must exit within 10 s. */
const DRAIN_MS = 8000;

/** What each listener is, by the variable that sets its port (CONTRACT §1). */
type PortVariable = 'PORT' | 'HTTP_PORT' | 'ADMIN_PORT';
const LISTENERS: Record<PortVariable, string> = { PORT: 'the HTTPS port', HTTP_PORT: 'the plain-HTTP port', ADMIN_PORT: 'the admin port' };

/**
 * A listen error as the person starting the service can act on it: which
 * variable set the port, and what to do (Node's own message, `listen
 * EADDRINUSE … 127.0.0.1:8080`, names neither).
 */
export function listenError(err: NodeJS.ErrnoException, variable: PortVariable, port: number, host: string): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const what = LISTENERS[variable];
  const off = variable === 'HTTP_PORT' ? ', or HTTP_PORT=0 to turn the plain-HTTP port off' : '';
  let message: string;
  if (err.code === 'EADDRINUSE') message = `${what} ${where} is already in use (EADDRINUSE): stop what holds it, or choose a free port with ${variable}=…${off}`;
  else if (err.code === 'EACCES') message = `${what} ${where} needs privileges this process does not have (EACCES): choose a port above 1023 with ${variable}=…${off}`;
  else if (err.code === 'EADDRNOTAVAIL') message = `${what} cannot bind ${where}: no interface has that address (EADDRNOTAVAIL): check HOST`;
  else message = `${what} could not listen on ${where}: ${err.message}`;
  return new Error(`${variable}: ${message}`);
}

function listen(server: HttpServer | HttpsServer, port: number, host: string, variable: PortVariable): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(listenError(err, variable, port, host));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops accepting, lets in-flight requests finish, and closes keep-alive
 * connections as soon as they go idle (a busy one would otherwise stay open
 * for keepAliveTimeout and take new requests); whatever is still open after
 * DRAIN_MS is cut.
 */
const connections = new WeakMap<HttpServer | HttpsServer, Set<Socket>>();
/**
 * A connection's responses not yet finished when its latest request came: one,
 * or several when the client pipelines requests (Node answers them in order).
 */
const RESPONSES = Symbol('responses');
type TrackedSocket = Socket & { [RESPONSES]?: ServerResponse[] };

/**
 * Keeps the open connections and each one's unfinished responses, so that
 * shutdown can mark the responses not yet sent Connection: close. Per request
 * this is an array kept short in place (a set of responses with a close
 * listener each was about 1% of a request's CPU); per connection, one listener.
 */
function trackResponses(server: HttpServer | HttpsServer): void {
  const open = new Set<Socket>();
  connections.set(server, open);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as TrackedSocket;
    let responses = socket[RESPONSES];
    if (responses === undefined) {
      responses = socket[RESPONSES] = [];
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    }
    // The finished ones go (in place: usually the one before this).
    let kept = 0;
    for (const earlier of responses) if (!earlier.writableFinished) responses[kept++] = earlier;
    responses.length = kept;
    responses.push(res);
  });
}

function closeServer(server: HttpServer | HttpsServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    // Answers written from now on tell the client to close the connection.
    for (const socket of connections.get(server) ?? []) {
      for (const res of (socket as TrackedSocket)[RESPONSES] ?? []) if (!res.headersSent) res.shouldKeepAlive = false;
    }
    server.on('request', (_req, res: ServerResponse) => {
      res.shouldKeepAlive = false;
    });
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => {
      server.closeAllConnections();
      // Uploads still running (reviews-import.ts) are ended here too.
      endUploads(server);
    }, DRAIN_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(idle);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Every plain-HTTP request is refused with the https_required envelope, never redirected. */
function refuseHttp(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify(httpsRequired().toJSON());
  res.writeHead(403, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': randomUUID(),
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function refuseMalformed(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  // An upload outlasting the whole-request deadline is held to its own rate instead (reviews-import.ts).
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isLongUpload(socket)) return;
  if (!socket.writable || (err.code !== 'HPE_HEADER_OVERFLOW' && err.code !== 'HPE_INVALID_METHOD' && !err.code?.startsWith('HPE_'))) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({
    error: tooLarge ? 'request_header_fields_too_large' : 'bad_request',
    message: tooLarge ? 'The request headers are too large (16 KiB at most).' : 'The request is not valid HTTP.',
    details: [],
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startService(config: Config, options: StartOptions = {}): Promise<Service> {
  const logger = options.logger ?? createStdoutLogger(config.logLevel, config.logFormat);
  const metrics = new Metrics();
  const rawStore = options.store ?? (await openStore(config));
  const store = metrics.instrument(rawStore);
  const redisHealth = config.redisUrl ? new RedisHealth(createRedis(config.redisUrl, 'review-proof', config.redisKeyPrefix), logger) : null;
  const tls = await loadTls(config, logger);
  const adminToken = await ensureAdminToken(config.adminToken, config.dataDir);
  const assets = await loadWidgetAssets();
  // Review intelligence loads its lexicons now, not during the first import (event loop).
  warmUp();
  // ENRICH_WORKERS is checked now (an invalid value stops start-up); the workers start with the first
  // import and load their lexicons beside the event loop, so a service that never imports never pays for them.
  enrichWorkersFromEnv();

  const lifecycle = { draining: false };
  const sessions = redisHealth ? new RedisSessions(redisHealth) : store.people.sessions;
  const dashboardAssets = await loadDashboardAssets();
  const secretsKey = await ensureSecretsKey(config.secretsKey, config.dataDir);
  // Review sources (CONTRACT §11): credentials sealed with SECRETS_KEY; background syncs through the one job
  // interface, BullMQ when Redis is there, in process otherwise (chosen here, once).
  const box = new SecretBox(secretsKey);
  // Outbound names (platforms, webhook endpoints) are resolved with c-ares, 5 s, at most 4 lookups in flight
  // per organization (api/net/host-resolver.ts): one resolver for the event loop, one in the delivery thread.
  const hostResolver = createHostResolver({ ...(options.dnsServers !== undefined && { servers: options.dnsServers }) });
  const platformHttp = new HttpClient({ resolve: hostResolver });
  const minute = minuteMs();
  const handler = SourcesService.handler({ store, box, http: platformHttp, urls: config.sourceUrls, googleOAuth: config.googleOAuth, logger, minuteMs: minute });
  const jobs: Jobs<SyncSummary> = config.redisUrl
    ? new BullJobs({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, handler, logger, skipped: (job) => ({ id: job.sourceId, state: 'active', fetched: 0, created: 0, updated: 0, removed: 0, rejected: [], requests: 0 }) })
    : new InProcessJobs({ handler, logger, due: (now) => dueSources(store, now), tickMs: Math.max(250, Math.min(15_000, minute / 4)) });
  // Per-organization counts of actions (api/limits/org-actions.ts): in Redis with REDIS_URL, so every instance shares one count.
  const limiterRedis = redisHealth && { health: redisHealth, db: new BatchedRateLimitDb(redisHealth.client, (seconds) => metrics.redisLatency.observe(seconds)) };
  // Connect, reconnect, sync now, Google start and locations: at most 30 a minute per organization (sources/limits.ts).
  const sources = new SourcesService(store, box, jobs, minute, { http: platformHttp, urls: config.sourceUrls, googleOAuth: config.googleOAuth }, new SourceActionLimiter(limiterRedis));
  // Webhooks (CONTRACT §12): the outbox is filled by the store; deliveries run as keyed jobs, BullMQ when Redis is there.
  // The exchanges with receivers run in a thread of their own (delivery-thread.ts), beside the event loop.
  const deliveryClient = createThreadedDeliveryClient({ allow: config.webhookAllowNetworks, ca: trustedCas(), ...(options.dnsServers !== undefined && { dnsServers: options.dnsServers }) });
  const deliveryQueue = config.redisUrl
    ? new BullKeyedQueue<DispatchWork>({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, name: 'webhook-dispatch', logger, lockMs: config.webhookLockMs })
    : undefined;
  const dispatcher = new Dispatcher({ store, box, client: deliveryClient, logger, pollMs: config.webhookPollMs, queue: deliveryQueue, retentionDays: config.webhookRetentionDays, bulk: bulkImports });
  // Webhook changes per organization (limits.ts): counted in Redis with REDIS_URL, so every instance shares one count.
  const webhookChanges = new ChangeLimiter(limiterRedis);
  const webhooks = new WebhooksService({ store, box, dispatcher, allow: config.webhookAllowNetworks, maxEndpoints: config.webhookMaxEndpoints, changes: webhookChanges, resolve: hostResolver });
  // The product catalog (CONTRACT §13): one service, which the admin API, the dashboard (and the review import) call.
  const products = new ProductsService(store);
  // Replies (CONTRACT §15): a job on the keyed door, BullMQ when Redis is there; the outcome shown through the ReviewReplies port.
  const replyQueue: KeyedQueue<ReplyJob> = config.redisUrl
    ? new BullKeyedQueue<ReplyJob>({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, name: 'replies', logger, concurrency: 8 })
    : new InProcessKeyedQueue<ReplyJob>(logger);
  const replies = new RepliesService({
    store, box, http: platformHttp, urls: config.sourceUrls, googleOAuth: config.googleOAuth, logger, queue: replyQueue,
    // Publishes and deletes: at most 60 a minute per organization (replies/limits.ts), counted in Redis with REDIS_URL.
    actions: new ReplyActionLimiter(limiterRedis),
    // The automatic-reply rule's own budget (30 a minute per organization), apart from the people's.
    autoActions: new ReplyActionLimiter(limiterRedis, AUTO_REPLIES_PER_MINUTE, 'reply-auto'),
    replies: options.reviewReplies ?? storeReviewReplies(store), minuteMs: minute,
    // In process a waiting job holds its key while it sleeps, and shutdown waits for it: short looks there (one store read each).
    pollMs: config.redisUrl ? Math.max(250, Math.min(15_000, minute / 4)) : Math.max(250, Math.min(1_000, minute / 4)),
  });
  // The review page (CONTRACT §13): its confirmation mails go out as keyed jobs, on BullMQ when Redis is there.
  const collect = new CollectService({ store, secretsKey, publicUrl: config.publicUrl, logger, ...(config.smtpUrl !== null && { mailer: createCollectMailer(config.smtpUrl, config.publicUrl) }) });
  const collectQueue = config.redisUrl
    ? new BullKeyedQueue<MailWork>({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, name: 'collect-mail', logger })
    : new InProcessKeyedQueue<MailWork>(logger);
  // Review invitations: `scheduled` to be mailed with SMTP_URL, `unsent` links without.
  // Invitations due at once (delay 0, a sendAt past) ask the sender to run now rather than at its next minute.
  let askSender: (() => void) | null = null;
  const invitations = new InvitationsService({ store, secretsKey, publicUrl: config.publicUrl, logger, collect, mails: config.smtpUrl !== null, onDue: () => askSender?.() });
  // With SMTP_URL: the sender mails what is due through the mail door (SMTP_RATE_PER_MINUTE across instances,
  // in Redis with REDIS_URL), a run every minute on the keyed job door (BullMQ when Redis is there).
  const mailDoor = config.smtpUrl === null ? null : new MailDoor({ smtpUrl: config.smtpUrl, fromAddress: config.smtpFrom.address, slots: createMailSlots(config.smtpRatePerMinute, redisHealth?.client ?? null), logger });
  const invitationSender = mailDoor === null ? null : new InvitationSender({ store, mail: mailDoor, link: (inv) => invitations.link(inv), secretsKey, publicUrl: config.publicUrl, logger, ratePerMinute: config.smtpRatePerMinute });
  askSender = invitationSender && (() => invitationSender.request());
  const invitationQueue: KeyedQueue<Record<string, never>> | null =
    invitationSender === null ? null : config.redisUrl ? new BullKeyedQueue({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, name: 'invitations', logger }) : new InProcessKeyedQueue(logger);
  // Retention: ended invitations (and their invitees' addresses) removed INVITATION_RETENTION_DAYS after they
  // ended, once a day on the keyed job door (BullMQ when Redis is there), with or without a relay.
  const invitationRetention = new InvitationRetention({ store, logger, retentionDays: config.invitationRetentionDays, onPurged: (n) => metrics.invitationsPurged.inc(n) });
  const retentionQueue: KeyedQueue<Record<string, never>> = config.redisUrl
    ? new BullKeyedQueue({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, name: 'invitation-retention', logger })
    : new InProcessKeyedQueue(logger);
  const app = createApp({ config, store, logger, redis: redisHealth, metrics, assets, lifecycle, dashboardAssets, sessions, secretsKey, sources, platformHttp, webhooks, products, replies, collect, invitations });
  const https = createHttpsServer({ cert: tls.cert, key: tls.key, maxHeaderSize: 16 * 1024, connectionsCheckingInterval: requestDeadline.checkEveryMs }, app.handler);
  https.headersTimeout = Math.min(10_000, requestDeadline.ms);
  https.requestTimeout = requestDeadline.ms;
  https.keepAliveTimeout = 5_000;
  // Requests Node refuses before Koa sees them (oversized headers, bad syntax) still get the JSON envelope.
  https.on('clientError', refuseMalformed);
  answerPlaintextOnTls(https);
  trackResponses(https);
  // The plain port serves the app only to the proxies of TRUST_PROXY (which then report the client's
  // protocol); anyone else gets https_required, whatever headers it sends.
  const proxies = new TrustedProxies(config.trustProxy);
  const appCallback = app.handler;
  const http =
    config.httpPort === 0
      ? null
      : createHttpServer({ maxHeaderSize: 16 * 1024 }, (req, res) => (proxies.trusts(req.socket.remoteAddress) ? appCallback(req, res) : refuseHttp(req, res)));
  http?.on('clientError', refuseMalformed);
  if (http) trackResponses(http);
  // Not awaited: a Redis that is away at start-up must not hold the service (schedules are kept once it is back).
  void (async () => {
    await jobs.start();
    await sources.ensureSchedules();
  })().catch((err: unknown) => logger.error({ err: (err as Error).message }, 'sources: the job queue could not start'));
  replies.start().catch((err: unknown) => logger.error({ err: (err as Error).message }, 'replies: the job queue could not start'));
  dispatcher.start();
  // Not awaited either: a Redis away at start-up must not hold the service (the mail queue starts once it is back).
  collect.start(collectQueue).catch((err: unknown) => logger.error({ err: (err as Error).message }, 'collect: the mail queue could not start'));
  if (invitationSender && invitationQueue) invitationSender.start(invitationQueue, minute).catch((err: unknown) => logger.error({ err: (err as Error).message }, 'invitations: the job queue could not start'));
  invitationRetention.start(retentionQueue).catch((err: unknown) => logger.error({ err: (err as Error).message }, 'invitations: the retention queue could not start'));
  const admin = createAdminApp({ store, logger, metrics, adminToken, config, sessions, sources, webhooks, products, replies, collect, invitations, invitationSender, invitationRetention });
  const adminServer = createHttpServer(admin.callback());
  adminServer.requestTimeout = 0; // imports stream for as long as they need
  trackResponses(adminServer);

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      logger.info('shutting down: no new connections, finishing in-flight requests');
      lifecycle.draining = true;
      await Promise.all([closeServer(https), http ? closeServer(http) : undefined, closeServer(adminServer)]);
      await app.close();
      await jobs.close();
      await replyQueue.close();
      await dispatcher.close();
      collect.close();
      await collectQueue.close();
      // The sender stops taking work, the door gives back what waits for a slot (its claims let go), then the queue ends.
      invitationSender?.close();
      await mailDoor?.close();
      await invitationQueue?.close();
      invitationRetention.close();
      await retentionQueue.close();
      webhookChanges.close();
      sources.close();
      deliveryClient.close();
      platformHttp.close();
      if (!options.store) await rawStore.close();
      if (redisHealth) await redisHealth.client.quit().catch(() => redisHealth.client.disconnect());
      logger.info('shutdown complete');
    })();
    return closing;
  };

  const ephemeral = options.ephemeralPorts === true;
  let ports: Service['ports'];
  try {
    ports = {
      https: await listen(https, ephemeral ? 0 : config.port, config.host, 'PORT'),
      http: http ? await listen(http, ephemeral ? 0 : config.httpPort, config.host, 'HTTP_PORT') : null,
      admin: await listen(adminServer, ephemeral ? 0 : config.adminPort, '127.0.0.1', 'ADMIN_PORT'),
    };
  } catch (err) {
    // Whatever did start (a listener, the store, the job queue) is closed before the error is reported.
    await close().catch(() => undefined);
    throw err;
  }
  const baseUrl = `https://${config.host.includes(':') ? `[${config.host}]` : config.host}:${ports.https}`;

  return { config, store, logger, sources, invitations, app, adminToken, ports, baseUrl, adminUrl: `http://127.0.0.1:${ports.admin}`, close };
}
