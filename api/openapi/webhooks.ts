/**
 * The document's top-level `webhooks` object (OpenAPI 3.1): one entry per
 * event type the service POSTs to subscribed endpoints (CONTRACT §12), with
 * the Standard Webhooks headers, the event body and what each answer means.
 * The event types and payloads themselves are defined in api/webhooks/events.ts.
 */
import { EVENT_TYPES, type EventType } from '../webhooks/event-types.ts';
import { reviewExample } from './examples.ts';
import { ref } from './refs.ts';
import type { JsonSchema, ParameterObject, WebhookOperationObject, WebhookItemObject } from './types.ts';

const ISO_TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };
const NULLABLE_TIMESTAMP: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

const sourceExample = {
  id: 'src_9aB3cD4eF5gH6iJ7kL8m',
  platform: 'trustpilot',
  account: 'acme.example',
  name: 'Trustpilot (acme.example)',
  state: 'needs_reauth',
  every: '60m',
  lastSyncAt: '2026-11-25T11:00:00.000Z',
  lastSuccessAt: '2026-11-25T10:00:00.000Z',
  nextSyncAt: '2026-11-25T12:00:00.000Z',
  lastError: 'The platform refused the credentials (401); reconnect the source.',
  heldRemovals: 0,
  reviewCount: 1284,
} as const;

/** A review source as `sources list` shows it. */
const WebhookSource: JsonSchema = {
  type: 'object',
  description: 'A review source as the admin CLI `sources list` shows it.',
  additionalProperties: false,
  required: ['id', 'platform', 'account', 'name', 'state', 'every', 'lastSyncAt', 'lastSuccessAt', 'nextSyncAt', 'lastError', 'heldRemovals', 'reviewCount'],
  properties: {
    id: { type: 'string', minLength: 1 },
    platform: { type: 'string', description: 'The platform the source collects from (e.g. trustpilot).' },
    account: { type: 'string', description: 'The account on that platform.' },
    name: { type: 'string' },
    state: { enum: ['active', 'paused', 'needs_reauth', 'failing'] },
    every: { type: 'string', description: 'How often it syncs, e.g. 60m.' },
    lastSyncAt: NULLABLE_TIMESTAMP,
    lastSuccessAt: NULLABLE_TIMESTAMP,
    nextSyncAt: NULLABLE_TIMESTAMP,
    lastError: { type: ['string', 'null'] },
    heldRemovals: { type: 'integer', minimum: 0, description: 'Removals a full pass held for a person (more than 10 % of the source\'s reviews): released or kept with sources release-removals / keep-removals.' },
    reviewCount: { type: 'integer', minimum: 0 },
  },
  examples: [sourceExample],
};

const ReplyFailedData: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reviewId', 'platform', 'reason'],
  properties: {
    reviewId: { type: 'string', description: 'The review the reply answers.' },
    platform: { type: 'string', description: 'The review\'s platform, upper case (`GOOGLE`, `TRUSTPILOT`).' },
    reason: { type: 'string', description: 'Why the platform did not take it, in words a person can act on.' },
  },
};

const WebhookTestData: JsonSchema = {
  type: 'object',
  description: 'What a test event carries: no review.',
  additionalProperties: false,
  required: ['webhookId', 'message'],
  properties: { webhookId: { type: 'string', minLength: 1, description: 'The endpoint the test was sent to.' }, message: { type: 'string' } },
};

interface EventDoc {
  schemaName: string;
  summary: string;
  description: string;
  data: JsonSchema;
  example: unknown;
}

const EVENTS: Record<EventType, EventDoc> = {
  'review.created': {
    schemaName: 'ReviewCreatedEvent',
    summary: 'A review was created',
    description: 'A review was stored for the first time, by an import, a dashboard upload or a source sync. `data` is the review exactly as `GET /reviews` shows it.',
    data: ref('Review'),
    example: reviewExample,
  },
  'review.updated': {
    schemaName: 'ReviewUpdatedEvent',
    summary: 'A review changed',
    description: 'A field of the review as `GET /reviews` shows it changed. `data` is the review after the change. Re-importing identical data sends nothing.',
    data: ref('Review'),
    example: { ...reviewExample, content: 'Fast delivery, and the support team solved my problem in minutes. Update: still happy a year later.' },
  },
  'review.removed': {
    schemaName: 'ReviewRemovedEvent',
    summary: 'A review was removed',
    description: 'The review was removed (for example it disappeared from its platform at a source sync). `data` is its last version.',
    data: ref('Review'),
    example: reviewExample,
  },
  'source.state_changed': {
    schemaName: 'SourceStateChangedEvent',
    summary: 'A review source changed state',
    description: 'A review source became `needs_reauth`, `failing` or `active` again. `data` is the source as `sources list` shows it.',
    data: ref('WebhookSource'),
    example: sourceExample,
  },
  'reply.failed': {
    schemaName: 'ReplyFailedEvent',
    summary: 'A reply could not be posted',
    description: 'A reply to a review was not taken by its platform (after retrying a rate limit or an outage a few times, or at once when the platform refused it; an authorization refusal also moves the source to `needs_reauth`). `data.reason` says why, in words a person can act on. Not in the default subscription: name it.',
    data: ref('ReplyFailedData'),
    example: { reviewId: 'rev_3kT9vQ2mX8pL4nR7wY1z', platform: 'GOOGLE', reason: 'Google is rate limiting this account (429); the reply will be tried again' },
  },
  'webhook.test': {
    schemaName: 'WebhookTestEvent',
    summary: 'A test event',
    description: 'Sent on demand (the dashboard’s `Send test event`, the CLI’s `webhooks test`) to one endpoint, whatever types it subscribed to.',
    data: ref('WebhookTestData'),
    example: { webhookId: 'wh_2bC4dE6fG8hJ0kL2mN4p', message: 'This is a test event; it carries no review.' },
  },
};

const EXAMPLE_TIMESTAMP = '2026-11-25T12:00:00.000Z';

function eventSchema(type: EventType, doc: EventDoc): JsonSchema {
  return {
    type: 'object',
    description: `The body of a \`${type}\` delivery.`,
    additionalProperties: false,
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { const: type },
      timestamp: { ...ISO_TIMESTAMP, description: 'When the event happened (ISO 8601, UTC).' },
      data: doc.data,
    },
    examples: [{ type, timestamp: EXAMPLE_TIMESTAMP, data: doc.example }],
  };
}

/** The component schemas the webhooks use, merged into the document's components. */
export const WEBHOOK_SCHEMAS: Record<string, JsonSchema> = {
  WebhookSource,
  WebhookTestData,
  ReplyFailedData,
  ...Object.fromEntries(EVENT_TYPES.map((type) => [EVENTS[type].schemaName, eventSchema(type, EVENTS[type])])),
};

const HEADERS: readonly ParameterObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The message id: the same on every attempt and replay of this message. Deduplicate by it (delivery is at least once).',
    schema: { type: 'string', minLength: 1 },
    example: 'msg_Qm9yU2F0dXJkYXlNb3JuaW5n',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt. Refuse a delivery more than 5 minutes away from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795608000',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks signatures, space separated: `v1,` + base64 of HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded part of the endpoint secret (`whsec_…`). One entry per live secret: two for 24 hours after a rotation. Verify with a Standard Webhooks library.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

function operationId(type: EventType): string {
  return type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase()) + 'Webhook';
}

function operation(type: EventType, doc: EventDoc): WebhookOperationObject {
  return {
    operationId: operationId(type),
    summary: doc.summary,
    description: `${doc.description}\n\nPOSTed to every enabled endpoint subscribed to \`${type}\`, signed per Standard Webhooks. A 2xx answer within 15 s is delivered; anything else is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (a \`Retry-After\` is honoured), then the message is failed. Redirects are never followed.`,
    tags: ['Webhooks'],
    security: [],
    parameters: HEADERS,
    requestBody: {
      description: `The event: \`{"type", "timestamp", "data"}\`. Verify the signature over these exact bytes before parsing.`,
      required: true,
      content: { 'application/json': { schema: ref(doc.schemaName), examples: { event: { value: { type, timestamp: EXAMPLE_TIMESTAMP, data: doc.example } } } } },
    },
    responses: {
      '200': { description: 'Any 2xx answer within 15 seconds: the message is delivered. The body is ignored (at most 64 KiB is read).' },
      '410': { description: 'Gone: the endpoint is disabled at once; its pending messages wait until it is enabled again.' },
      default: { description: 'Any other answer, a timeout or a connection error: the attempt failed and is retried on the schedule.' },
    },
  };
}

export function webhooksObject(): Record<EventType, WebhookItemObject> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: operation(type, EVENTS[type]) }])) as Record<EventType, WebhookItemObject>;
}
