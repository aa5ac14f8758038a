/**
 * What Owners, Admins and the operator do with webhook endpoints (CONTRACT
 * §12): the admin API and the CLI's `webhooks` commands call these. A secret
 * is answered only by `create` and `rotateSecret`; everything else shows the
 * endpoint without it. Every change is audited.
 *
 * The limits per organization (limits.ts) live here, so that the dashboard,
 * the admin API and the CLI meet the same ones: at most `maxEndpoints`
 * endpoints (409 past it), and creations, tests and rotations together at
 * most 30 a minute (429 with Retry-After).
 */
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import type { SecretBox } from '../secrets/secrets.ts';
import { newId } from '../store/ids.ts';
import type { User } from '../store/people-types.ts';
import type { Store } from '../store/types.ts';
import { deliveryId, type DeliveryStatus, type WebhookDelivery, type WebhookEndpoint } from '../store/webhook-types.ts';
import { DELIVERY_TIMEOUT_MS } from './deliver.ts';
import { Dispatcher, openSecrets, sealSecrets } from './dispatcher.ts';
import { DEFAULT_SUBSCRIPTION, SUBSCRIBABLE_EVENT_TYPES, type EventType } from './event-types.ts';
import { eventBody, newMessageId, testEvent } from './events.ts';
import type { AllowedNetwork } from './networks.ts';
import { generateSecret, rotateSecrets } from './secrets.ts';
import { checkEndpointUrl, EndpointUrlError } from './url-check.ts';
import type { Resolver } from './guarded-lookup.ts';
import { ChangeLimiter, DEFAULT_MAX_ENDPOINTS, tooManyEndpoints } from './limits.ts';

/** An endpoint as `webhooks list` shows it. */
export function publicEndpoint(e: WebhookEndpoint) {
  return { id: e.id, url: e.url, events: e.events, description: e.description, state: e.state, createdAt: e.createdAt, lastDeliveryAt: e.lastDeliveryAt, failingSince: e.failingSince };
}

/** A delivery as `webhooks deliveries` shows it: `id` is the message id (`webhook-id`). */
export function publicDelivery(d: WebhookDelivery) {
  return { id: d.messageId, type: d.type, status: d.status, attempts: d.attempts, lastStatusCode: d.lastStatusCode, lastError: d.lastError, lastAttemptAt: d.lastAttemptAt, nextAttemptAt: d.nextAttemptAt };
}

const MAX_DESCRIPTION = 500;
/** Rotations read and written again at most, when others keep changing the secrets meanwhile (then 409). */
const ROTATION_TRIES = 5;
/** When a Test's delivery falls due if its attempt never wrote an outcome (a crash): past the attempt's own timeout. */
export const TEST_LEASE_MS = 2 * DELIVERY_TIMEOUT_MS;
const DELIVERIES_LISTED = 1000;

export interface WebhooksServiceOptions {
  store: Store;
  box: SecretBox;
  dispatcher: Dispatcher;
  allow: readonly AllowedNetwork[];
  /** DNS for endpoint checks, shared with the platform calls (one per process); unset: the process's default. */
  resolve?: Resolver;
  /** Who the audit records name: the operator (admin API, CLI) unless the service was taken `as` a person. */
  actor?: Actor;
  /** Endpoints per organization at most (WEBHOOK_MAX_ENDPOINTS): DEFAULT_MAX_ENDPOINTS when absent. */
  maxEndpoints?: number;
  /** Counts creations, tests, replays, enables, disables and rotations per organization (shared in Redis when built with it): in process when absent. */
  changes?: ChangeLimiter;
}

/** A signed-in person (the dashboard) or the operator. */
export type Actor = Pick<User, 'id' | 'email'> | typeof OPERATOR;

export class WebhooksService {
  private readonly o: WebhooksServiceOptions & { changes: ChangeLimiter };

  constructor(options: WebhooksServiceOptions) {
    // One limiter for the service and every copy `as` makes of it.
    this.o = { ...options, changes: options.changes ?? new ChangeLimiter(null) };
  }

  private get maxEndpoints(): number {
    return this.o.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS;
  }

  private get store(): Store {
    return this.o.store;
  }

  private get actor(): Actor {
    return this.o.actor ?? OPERATOR;
  }

  /** The same service, its audit records naming `actor` (the dashboard's signed-in person). */
  as(actor: Actor): WebhooksService {
    return new WebhooksService({ ...this.o, actor: 'id' in actor ? { id: actor.id, email: actor.email } : actor });
  }

  async get(id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.store.webhooks.get(id);
    if (!endpoint) throw notFound(`Webhook ${JSON.stringify(id.slice(0, 64))}`);
    return endpoint;
  }

  async create(input: { orgId: string; url: unknown; events?: unknown; description?: unknown }) {
    if (typeof input.url !== 'string') throw badRequest('url must be a string', [{ parameter: 'url', message: 'must be a string' }]);
    // Counted before the name is resolved (what a creation costs others), and refused at the cap before that too.
    await this.o.changes.take(input.orgId);
    if ((await this.store.webhooks.listByOrg(input.orgId)).length >= this.maxEndpoints) throw tooManyEndpoints(this.maxEndpoints);
    let url: string;
    try {
      url = await checkEndpointUrl(input.url, this.o.allow, this.o.resolve, input.orgId);
    } catch (err) {
      if (err instanceof EndpointUrlError) throw badRequest(err.message, [{ parameter: 'url', message: err.message }]);
      throw err;
    }
    const events = eventsOf(input.events);
    const description = input.description === undefined ? '' : input.description;
    if (typeof description !== 'string' || description.length > MAX_DESCRIPTION) {
      throw badRequest(`description must be a string of at most ${MAX_DESCRIPTION} characters`, [{ parameter: 'description', message: 'too long or not a string' }]);
    }
    const now = new Date();
    const id = newId('wh');
    const secret = generateSecret();
    const endpoint: WebhookEndpoint = {
      id, orgId: input.orgId, url, events, description, state: 'enabled', disabledReason: null, createdAt: now.toISOString(), updatedAt: now.toISOString(),
      lastDeliveryAt: null, failingSince: null, secrets: sealSecrets(this.o.box, id, [{ secret, createdAt: now, expiresAt: null }]),
    };
    // The store counts again as it writes: creations racing for the last place never pass the cap.
    if (!(await this.store.webhooks.create(endpoint, this.maxEndpoints))) throw tooManyEndpoints(this.maxEndpoints);
    await audit(this.store, endpoint.orgId, this.actor, 'webhook.created', { id, label: url }, { events: events.join(',') });
    return { id, url, events, description, state: endpoint.state, secret, createdAt: endpoint.createdAt };
  }

  async list(orgId: string) {
    return (await this.store.webhooks.listByOrg(orgId)).map(publicEndpoint);
  }

  async deliveries(id: string, status: unknown) {
    if (status !== undefined && status !== 'pending' && status !== 'delivered' && status !== 'failed') {
      throw badRequest('status must be pending, delivered or failed', [{ parameter: 'status', message: 'unknown status' }]);
    }
    const endpoint = await this.get(id);
    return (await this.store.webhooks.deliveries(endpoint.id, (status as DeliveryStatus | undefined) ?? null, DELIVERIES_LISTED)).map(publicDelivery);
  }

  /** Sends the message to the endpoint again, under the same `webhook-id`: pending now, with a fresh schedule. */
  async replay(id: string, messageId: string) {
    const endpoint = await this.get(id);
    await this.o.changes.take(endpoint.orgId);
    const message = await this.store.webhooks.getMessage(messageId);
    if (!message || message.orgId !== endpoint.orgId) throw notFound(`Message ${JSON.stringify(messageId.slice(0, 64))}`);
    const existing = await this.store.webhooks.getDelivery(deliveryId(message.id, endpoint.id));
    const now = new Date().toISOString();
    const delivery: WebhookDelivery = existing
      ? { ...existing, status: 'pending', attempts: 0, nextAttemptAt: now }
      : { id: deliveryId(message.id, endpoint.id), messageId: message.id, endpointId: endpoint.id, orgId: endpoint.orgId, type: message.type, status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: now, createdAt: message.createdAt };
    await this.store.webhooks.putDelivery(delivery);
    await audit(this.store, endpoint.orgId, this.actor, 'webhook.replayed', { id: endpoint.id, label: endpoint.url }, { message: message.id });
    this.o.dispatcher.wake();
    return { id: message.id, status: 'pending' as const };
  }

  /** A `webhook.test` to this endpoint, sent now; answers the attempt's outcome (and retried like any message if it failed). */
  async test(id: string) {
    const endpoint = await this.get(id);
    await this.o.changes.take(endpoint.orgId);
    const now = new Date();
    const message = { id: newMessageId(), orgId: endpoint.orgId, type: 'webhook.test' as EventType, body: eventBody(testEvent(endpoint.id, now)), createdAt: now.toISOString(), endpointId: endpoint.id };
    await this.store.webhooks.addMessage(message);
    const delivery: WebhookDelivery = {
      id: deliveryId(message.id, endpoint.id), messageId: message.id, endpointId: endpoint.id, orgId: endpoint.orgId, type: message.type, status: 'pending',
      // Due once the attempt below has had all its time: if the process dies before writing the outcome, a sweep
      // (of any instance, after a restart) sends it then, as any retry; the outcome written replaces this.
      attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: new Date(now.getTime() + TEST_LEASE_MS).toISOString(), createdAt: message.createdAt,
    };
    await this.store.webhooks.fanOut(message.id, [delivery]);
    await audit(this.store, endpoint.orgId, this.actor, 'webhook.tested', { id: endpoint.id, label: endpoint.url });
    const result = await this.o.dispatcher.attempt(endpoint, delivery);
    const after = await this.store.webhooks.getDelivery(delivery.id);
    return { id: message.id, status: after?.status ?? 'pending', statusCode: result?.statusCode ?? null };
  }

  /**
   * A new secret, added to the list as it is in the store: a compare-and-set
   * of the sealed list, read again and rotated again when another rotation
   * wrote it meanwhile (two Admins, a double click, another instance), so
   * that every secret answered is one the endpoint signs with.
   */
  async rotateSecret(id: string) {
    let endpoint = await this.get(id);
    await this.o.changes.take(endpoint.orgId);
    const secret = generateSecret();
    for (let tries = 1; ; tries++) {
      const secrets = rotateSecrets(openSecrets(this.o.box, endpoint), secret, new Date());
      if (await this.store.webhooks.replaceSecrets(endpoint.id, endpoint.secrets, sealSecrets(this.o.box, endpoint.id, secrets))) break;
      if (tries >= ROTATION_TRIES) throw new ApiError(409, 'conflict', 'The secret was being changed by another rotation. Try again.');
      endpoint = await this.get(id);
    }
    await audit(this.store, endpoint.orgId, this.actor, 'webhook.secret_rotated', { id: endpoint.id, label: endpoint.url });
    return { id: endpoint.id, secret };
  }

  /** Enabled again: what is pending resumes now, and the 5 days count afresh. */
  async enable(id: string) {
    const endpoint = await this.get(id);
    await this.o.changes.take(endpoint.orgId);
    const updated = (await this.store.webhooks.update(endpoint.id, { state: 'enabled', disabledReason: null, failingSince: null }))!;
    // Every pending delivery left unscheduled (a 410 or a Test recorded by an earlier version: they now always have a due
    // time) is due now, however old and however long the backlog before it: the store schedules them all at once.
    await this.store.webhooks.resumeWaiting(endpoint.id, new Date().toISOString());
    if (endpoint.state !== 'enabled') await audit(this.store, endpoint.orgId, this.actor, 'webhook.enabled', { id: endpoint.id, label: endpoint.url });
    this.o.dispatcher.wake();
    return { id: updated.id, state: updated.state };
  }

  async disable(id: string) {
    const endpoint = await this.get(id);
    await this.o.changes.take(endpoint.orgId);
    const updated = (await this.store.webhooks.update(endpoint.id, { state: 'disabled', disabledReason: 'manual' }))!;
    if (endpoint.state !== 'disabled') await audit(this.store, endpoint.orgId, this.actor, 'webhook.disabled', { id: endpoint.id, label: endpoint.url }, { reason: 'manual' });
    return { id: updated.id, state: updated.state };
  }

  async remove(id: string) {
    const endpoint = await this.get(id);
    await this.store.webhooks.remove(endpoint.id);
    await audit(this.store, endpoint.orgId, this.actor, 'webhook.removed', { id: endpoint.id, label: endpoint.url });
    return { id: endpoint.id, removed: true as const };
  }
}

function eventsOf(raw: unknown): EventType[] {
  if (raw === undefined) return [...DEFAULT_SUBSCRIPTION];
  const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter(Boolean) : raw;
  if (!Array.isArray(list) || list.length === 0 || !list.every((t) => typeof t === 'string' && (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(t))) {
    throw badRequest(`events must name some of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`, [{ parameter: 'events', message: 'unknown event type' }]);
  }
  return [...new Set(list as EventType[])];
}
