/**
 * The dispatcher (CONTRACT §12): reads the outbox in batches, fans each
 * message out to the enabled endpoints subscribed to its type (one delivery
 * record per (message, endpoint), idempotent), then delivers what is due,
 * one worker per endpoint: an endpoint's deliveries go one after another, and
 * a slow or dead endpoint holds up only its own worker. Every attempt's result
 * is written to the delivery record before the next one starts, so a restart
 * resumes from the store (delivery is at least once; receivers deduplicate by
 * `webhook-id`).
 *
 * The work runs through keyed jobs (api/jobs/keyed-work.ts): `sweep` (fan
 * out the outbox, then ask for each endpoint with work due) and
 * `endpoint:{id}` (that endpoint's worker). With REDIS_URL they are BullMQ
 * jobs whose id is the key, so across instances one worker per endpoint at a
 * time and each delivery attempted by one instance at a time; an instance
 * that dies leaves its job to another. Without Redis, in process. Every
 * instance's timer asks for a sweep every `pollMs`; `wake()` asks now, and
 * so does the store of this process after a write that recorded events
 * (`store.outboxWritten`, debounced: an import batch is one wake). Other
 * instances find those messages on their poll.
 */
import { InProcessKeyedQueue } from '../jobs/keyed-in-process.ts';
import type { KeyedQueue } from '../jobs/keyed-work.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../secrets/secrets.ts';
import type { Store } from '../store/types.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';
import { deliveryId, type OutboxMessage, type WebhookDelivery, type WebhookEndpoint } from '../store/webhook-types.ts';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { attemptDelivery } from './attempt.ts';
import type { DeliveryClient, DeliveryResult } from './deliver.ts';
import { endpointAfterAttempt, type EndpointHealth } from './endpoint-health.ts';
import { subscribes } from './event-types.ts';
import { messageAfterAttempt } from './retry-schedule.ts';
import type { EndpointSecret } from './secrets.ts';

/** Messages or deliveries read per store call: a backlog never sits in memory whole. */
const BATCH = 100;

/** The sealed form of an endpoint's secret list. */
interface SealedSecret {
  secret: string;
  createdAt: string;
  expiresAt: string | null;
}

export function sealSecrets(box: SecretBox, endpointId: string, secrets: readonly EndpointSecret[]): string {
  const plain: SealedSecret[] = secrets.map((s) => ({ secret: s.secret, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt?.toISOString() ?? null }));
  return box.sealJson(plain, endpointId);
}

export function openSecrets(box: SecretBox, endpoint: Pick<WebhookEndpoint, 'id' | 'secrets'>): EndpointSecret[] {
  return box.openJson<SealedSecret[]>(endpoint.secrets, endpoint.id).map((s) => ({ secret: s.secret, createdAt: new Date(s.createdAt), expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt) }));
}

export function healthOf(e: WebhookEndpoint): EndpointHealth {
  return {
    state: e.state,
    disabledReason: e.disabledReason,
    lastDeliveryAt: e.lastDeliveryAt === null ? null : new Date(e.lastDeliveryAt),
    failingSince: e.failingSince === null ? null : new Date(e.failingSince),
  };
}

/** What the dispatcher's keyed jobs carry. */
export type DispatchWork = { kind: 'sweep' } | { kind: 'endpoint'; endpointId: string } | { kind: 'prune' };

/** How long finished deliveries and their messages are kept (the delivery log, replay): 30 days. */
export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

export interface DispatcherOptions {
  store: Store;
  /** Where its work runs (keyed-bullmq.ts with Redis); in process when absent. */
  queue?: KeyedQueue<DispatchWork>;
  box: SecretBox;
  client: DeliveryClient;
  logger: Logger;
  /** How often it looks for work without being woken. */
  pollMs?: number;
  now?: () => Date;
  random?: () => number;
  /** Finished deliveries and their messages older than this are pruned (WEBHOOK_RETENTION_DAYS). */
  retentionDays?: number;
  /** How often pruning runs (in batches, as a keyed job like the rest). */
  pruneEveryMs?: number;
  /** Records removed per store call while pruning. */
  pruneBatch?: number;
}

export class Dispatcher {
  private readonly store: Store;
  private readonly options: DispatcherOptions;
  private readonly now: () => Date;
  private readonly queue: KeyedQueue<DispatchWork>;
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private stopListening: (() => void) | null = null;
  private started: Promise<void> | null = null;
  private closed = false;

  constructor(options: DispatcherOptions) {
    this.options = options;
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    this.queue = options.queue ?? new InProcessKeyedQueue<DispatchWork>(options.logger);
  }

  start(): void {
    this.started = this.queue.start((work) => this.run(work));
    this.started.catch((err: unknown) => this.options.logger.error({ err }, 'webhooks: the delivery queue could not start'));
    const every = this.options.pollMs ?? 1000;
    this.timer = setInterval(() => this.wake(), every);
    this.timer.unref();
    this.pruneTimer = setInterval(() => this.request({ kind: 'prune' }), this.options.pruneEveryMs ?? 3600_000);
    this.pruneTimer.unref();
    this.stopListening = this.store.outboxWritten?.listen(() => this.wake()) ?? null;
    this.wake();
    this.request({ kind: 'prune' });
  }

  private request(work: DispatchWork): void {
    if (this.closed) return;
    const key = work.kind === 'endpoint' ? `endpoint:${work.endpointId}` : work.kind;
    this.queue.request({ key, data: work }).catch((err: unknown) => this.options.logger.warn({ err, work: work.kind }, 'webhooks: could not ask for work'));
  }

  /**
   * Forgets finished deliveries, and messages no delivery refers to any more,
   * older than the retention, a batch per store call (never the whole backlog
   * at once). Answers how many records were removed.
   */
  async prune(): Promise<number> {
    const before = new Date(this.now().getTime() - (this.options.retentionDays ?? RETENTION_DAYS) * DAY_MS);
    let total = 0;
    for (;;) {
      const removed = await this.store.webhooks.prune(before, this.options.pruneBatch ?? 500);
      total += removed;
      if (removed === 0 || this.closed) return total;
    }
  }

  private async run(work: DispatchWork): Promise<void> {
    try {
      if (work.kind === 'sweep') await this.pass();
      else if (work.kind === 'endpoint') await this.work(work.endpointId);
      else await this.prune();
    } catch (err) {
      // The store away (a 503 elsewhere): the next sweep tries again; nothing was lost.
      if (!(err instanceof StoreUnavailableError)) throw err;
      this.options.logger.warn({ err: err.message, work: work.kind }, 'webhooks: the store is not answering');
    }
  }

  /** Looks for work now (after an import, a replay, a test). */
  wake(): void {
    this.request({ kind: 'sweep' });
  }

  /**
   * One sweep: fans out the waiting messages a batch at a time, asking for the
   * worker of every endpoint a batch gave deliveries right after that batch
   * (so deliveries start while the outbox still fills), then asks for the
   * worker of each enabled endpoint with work due (retries that came due).
   */
  async pass(): Promise<void> {
    for (;;) {
      const { read, endpoints } = await this.fanOutBatch();
      for (const endpointId of endpoints) if (!this.closed) this.request({ kind: 'endpoint', endpointId });
      if (read < BATCH || this.closed) break;
    }
    const now = this.now();
    for (const endpoint of await this.store.webhooks.listAll()) {
      if (endpoint.state !== 'enabled' || this.closed) continue;
      if ((await this.store.webhooks.due(now, 1, endpoint.id)).length === 0) continue;
      await this.queue.request({ key: `endpoint:${endpoint.id}`, data: { kind: 'endpoint', endpointId: endpoint.id } });
    }
  }

  /**
   * Fans out one batch of waiting messages: their writes are made together
   * (the embedded store commits them in one round). Answers how many messages
   * it read and the endpoints that got deliveries.
   */
  private async fanOutBatch(): Promise<{ read: number; endpoints: Set<string> }> {
    const messages = await this.store.webhooks.unfanned(BATCH);
    const touched = new Set<string>();
    if (messages.length === 0) return { read: 0, endpoints: touched };
    const byOrg = new Map<string, WebhookEndpoint[]>();
    for (const message of messages) if (!byOrg.has(message.orgId)) byOrg.set(message.orgId, await this.store.webhooks.listByOrg(message.orgId));
    await Promise.all(
      messages.map((message) => {
        const deliveries = this.deliveriesOf(message, byOrg.get(message.orgId)!);
        for (const d of deliveries) touched.add(d.endpointId);
        return this.store.webhooks.fanOut(message.id, deliveries);
      }),
    );
    return { read: messages.length, endpoints: touched };
  }

  private deliveriesOf(message: OutboxMessage, endpoints: WebhookEndpoint[]): WebhookDelivery[] {
    const at = this.now().toISOString();
    return endpoints
      .filter((e) => (message.endpointId === null ? e.state === 'enabled' && subscribes(e.events, message.type) : e.id === message.endpointId))
      .map((e) => ({
        id: deliveryId(message.id, e.id), messageId: message.id, endpointId: e.id, orgId: message.orgId, type: message.type, status: 'pending',
        attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: at, createdAt: message.createdAt,
      }));
  }

  /** An endpoint's worker: its due deliveries, oldest first, one at a time, until none is due or it is disabled. */
  private async work(endpointId: string): Promise<void> {
    while (!this.closed) {
      const due = await this.store.webhooks.due(this.now(), BATCH, endpointId);
      if (due.length === 0) return;
      for (const delivery of due) {
        const endpoint = await this.store.webhooks.get(endpointId);
        if (!endpoint || endpoint.state !== 'enabled' || this.closed) return;
        await this.attempt(endpoint, delivery);
      }
    }
  }

  /** One attempt, its result written to the delivery and the endpoint. Answers the result. */
  async attempt(endpoint: WebhookEndpoint, delivery: WebhookDelivery): Promise<DeliveryResult | null> {
    const message = await this.store.webhooks.getMessage(delivery.messageId);
    if (!message) {
      await this.store.webhooks.putDelivery({ ...delivery, status: 'failed', nextAttemptAt: null, lastError: 'the message is gone' });
      return null;
    }
    const result = await attemptDelivery(this.options.client, { url: endpoint.url, secrets: openSecrets(this.options.box, endpoint) }, { id: message.id, body: message.body }, this.now());
    const now = this.now();
    const attempts = delivery.attempts + 1;
    const outcome = messageAfterAttempt(result, attempts, now, this.options.random);
    await this.store.webhooks.putDelivery({
      ...delivery,
      status: outcome.status,
      attempts,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      lastAttemptAt: now.toISOString(),
      nextAttemptAt: outcome.status === 'pending' && outcome.nextAttemptAt ? outcome.nextAttemptAt.toISOString() : null,
    });
    const before = healthOf(endpoint);
    const after = endpointAfterAttempt(before, result, now);
    const patch = {
      state: after.state,
      disabledReason: after.disabledReason,
      lastDeliveryAt: after.lastDeliveryAt?.toISOString() ?? null,
      failingSince: after.failingSince?.toISOString() ?? null,
    };
    if (patch.state !== endpoint.state || patch.lastDeliveryAt !== endpoint.lastDeliveryAt || patch.failingSince !== endpoint.failingSince) {
      await this.store.webhooks.update(endpoint.id, patch);
    }
    if (before.state === 'enabled' && after.state === 'disabled') {
      this.options.logger.warn({ webhookId: endpoint.id, reason: after.disabledReason }, 'webhook endpoint disabled');
      await audit(this.store, endpoint.orgId, OPERATOR, 'webhook.disabled', { id: endpoint.id, label: endpoint.url }, { reason: after.disabledReason ?? '' });
    }
    return result;
  }

  /** Stops looking for work and waits for the workers (an attempt in flight ends within its timeout). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.started?.catch(() => undefined);
    await this.queue.close();
  }
}
