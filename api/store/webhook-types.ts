/**
 * Webhook records (CONTRACT §12) and the store interface they live behind:
 * endpoints (secrets sealed with the SecretBox, api/secrets), the outbox of
 * event messages written together with the review changes that cause them,
 * and the delivery state of each (message, endpoint).
 *
 * The outbox is filled by the stores themselves, inside `reviews.upsert` and
 * `reviews.remove` (the one door every review change takes: file imports,
 * dashboard uploads and source syncs alike), in the same durable write as the
 * change; a source's state change likewise inside `sources.update`
 * (`source.state_changed`). Events are recorded only for an organization that has at least one
 * endpoint (enabled or not) when the change is written; fan-out to the
 * enabled endpoints subscribed to the type happens at dispatch time, or, on
 * the embedded store, for an import's events in the import's own write.
 */
import { subscribes, type EventType } from '../webhooks/event-types.ts';

export type EndpointState = 'enabled' | 'disabled';

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  events: EventType[];
  description: string;
  state: EndpointState;
  /** Why it is disabled ("manual", "the endpoint answered 410 Gone", "every delivery failed since …"); null while enabled. */
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
  lastDeliveryAt: string | null;
  failingSince: string | null;
  /** Sealed JSON of the secret list (SecretBox, aad = the endpoint id): never stored or shown in the clear. */
  secrets: string;
}

export type WebhookEndpointPatch = Partial<Pick<WebhookEndpoint, 'url' | 'events' | 'description' | 'state' | 'disabledReason' | 'lastDeliveryAt' | 'failingSince' | 'secrets'>>;

/** One event, recorded once; its id is the `webhook-id` of every attempt and replay. */
export interface OutboxMessage {
  id: string;
  orgId: string;
  type: EventType;
  /** The exact JSON sent and signed. */
  body: string;
  createdAt: string;
  /** For `webhook.test`: the one endpoint it goes to; null = every subscribed endpoint. */
  endpointId: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One message to one endpoint. `id` = `${messageId}~${endpointId}`, so fanning out twice writes the same record. */
export interface WebhookDelivery {
  id: string;
  messageId: string;
  endpointId: string;
  orgId: string;
  type: EventType;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  /**
   * When the next attempt is due; null when none is scheduled (delivered or failed). A pending delivery
   * with none (a 410 recorded by an earlier version) is made due by `resumeWaiting` when its endpoint is enabled.
   */
  nextAttemptAt: string | null;
  createdAt: string;
}

export function deliveryId(messageId: string, endpointId: string): string {
  return `${messageId}~${endpointId}`;
}

/** Whether fan-out gives an event of `type` to `endpoint`: enabled and subscribed to it (the dispatcher's sweep and the embedded store's fan-out at write). */
export function fansOutTo(endpoint: Pick<WebhookEndpoint, 'state' | 'events'>, type: EventType): boolean {
  return endpoint.state === 'enabled' && subscribes(endpoint.events, type);
}

/** The delivery of `message` to an endpoint as fan-out makes it: pending, never tried, due `at`. */
export function freshDelivery(message: Pick<OutboxMessage, 'id' | 'orgId' | 'type' | 'createdAt'>, endpointId: string, at: string): WebhookDelivery {
  return {
    id: deliveryId(message.id, endpointId), messageId: message.id, endpointId, orgId: message.orgId, type: message.type, status: 'pending',
    attempts: 0, lastStatusCode: null, lastError: null, lastAttemptAt: null, nextAttemptAt: at, createdAt: message.createdAt,
  };
}

export interface WebhookStore {
  /**
   * Adds the endpoint, unless its organization already has `maxPerOrg`
   * endpoints (CONTRACT §12, WEBHOOK_MAX_ENDPOINTS): then nothing is written
   * and the answer is false. Never more than `maxPerOrg`, whatever runs at
   * the same time (two creations racing for the last place may both be
   * refused on MongoDB). No cap when `maxPerOrg` is absent.
   */
  create(endpoint: WebhookEndpoint, maxPerOrg?: number): Promise<boolean>;
  get(id: string): Promise<WebhookEndpoint | null>;
  listByOrg(orgId: string): Promise<WebhookEndpoint[]>;
  /** Every endpoint (the dispatcher's view: a short list). */
  listAll(): Promise<WebhookEndpoint[]>;
  update(id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint | null>;
  /**
   * Compare-and-set of the endpoint's sealed secret list: writes `to` only if
   * the stored list is still exactly `from` (nothing wrote it since it was
   * read). Answers the endpoint as written, or null when it is gone or its
   * secrets changed meanwhile (then nothing is written: read and try again).
   */
  replaceSecrets(id: string, from: string, to: string): Promise<WebhookEndpoint | null>;
  /** Forgets the endpoint and its deliveries; false when it was not there. */
  remove(id: string): Promise<boolean>;

  /** Records a message outside a review change (`webhook.test`). */
  addMessage(message: OutboxMessage): Promise<void>;
  getMessage(id: string): Promise<OutboxMessage | null>;
  /**
   * Messages not yet fanned out, at most `limit`, fairly across organizations:
   * round-robin over the organizations with messages waiting, oldest first
   * within each (one organization's backlog never puts another's message
   * behind it). May answer fewer than `limit` while more wait; an empty answer
   * means none is waiting.
   */
  unfanned(limit: number): Promise<OutboxMessage[]>;
  /** Writes the message's deliveries (idempotent by their id) and marks it fanned out; a delivery to an endpoint removed meanwhile is not kept. */
  fanOut(messageId: string, deliveries: WebhookDelivery[]): Promise<void>;

  /** Writes the delivery as given; one to an endpoint removed meanwhile is not kept. */
  putDelivery(delivery: WebhookDelivery): Promise<void>;
  /**
   * Schedules at `at` every pending delivery of the endpoint that has no due
   * time (`nextAttemptAt` null: waiting for the endpoint to be enabled again),
   * however many there are and however old. Answers how many it scheduled.
   */
  resumeWaiting(endpointId: string, at: string): Promise<number>;
  getDelivery(id: string): Promise<WebhookDelivery | null>;
  /** Pending deliveries due at `now` (nextAttemptAt <= now), oldest due first, at most `limit`. */
  due(now: Date, limit: number, endpointId?: string): Promise<WebhookDelivery[]>;
  /** An endpoint's deliveries, newest first, at most `limit`. */
  deliveries(endpointId: string, status: DeliveryStatus | null, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Forgets, in one batch, at most `limit` finished deliveries (delivered or
   * failed) whose last attempt was before `before`, then at most `limit`
   * fanned-out messages recorded before `before` that no delivery refers to
   * any more. A pending delivery, and its message, is never pruned. Answers
   * how many records it removed (0: nothing left to prune).
   */
  prune(before: Date, limit: number): Promise<number>;
}
