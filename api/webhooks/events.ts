/**
 * The events a webhook carries (CONTRACT §12) and the one way their body is
 * built: `{"type","timestamp","data"}`. A review's `data` is the Review exactly
 * as `GET /api/v1/reviews` shows it (publicReview), for `review.removed` its
 * last version; a source's is the source as `sources list` shows it.
 */
import { randomFillSync } from 'node:crypto';
import { publicReview } from '../reviews/routes.ts';
import type { Review } from '../store/types.ts';
import type { ReviewEventType } from './event-types.ts';

export { DEFAULT_SUBSCRIPTION, EVENT_TYPES, REPLY_EVENT_TYPES, REVIEW_EVENT_TYPES, SOURCE_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES, isEventType, subscribes } from './event-types.ts';
export type { EventType, ReviewEventType } from './event-types.ts';

export type PublicReview = ReturnType<typeof publicReview>;

/**
 * A source as `sources list` shows it (CONTRACT §11). The sources module owns
 * the shape; it is written out here so that the event's type says what
 * receivers get.
 */
export interface PublicSource {
  id: string;
  platform: string;
  account: string;
  name: string;
  state: 'active' | 'paused' | 'needs_reauth' | 'failing';
  every: string;
  lastSyncAt: string | null;
  lastSuccessAt: string | null;
  nextSyncAt: string | null;
  lastError: string | null;
  heldRemovals: number;
  reviewCount: number;
}

/** `reply.failed` (CONTRACT §15): the review, its platform (upper case) and why, in words a person can act on. */
export interface ReplyFailedData {
  reviewId: string;
  platform: string;
  reason: string;
}

export interface TestEventData {
  /** The endpoint the test was sent to. */
  webhookId: string;
  message: string;
}

export type WebhookEvent =
  | { type: ReviewEventType; timestamp: string; data: PublicReview }
  | { type: 'source.state_changed'; timestamp: string; data: PublicSource }
  | { type: 'reply.failed'; timestamp: string; data: ReplyFailedData }
  | { type: 'webhook.test'; timestamp: string; data: TestEventData };

export function reviewEvent(type: ReviewEventType, review: Review, at: Date): WebhookEvent {
  return { type, timestamp: at.toISOString(), data: publicReview(review) };
}

export function sourceStateChangedEvent(source: PublicSource, at: Date): WebhookEvent {
  return { type: 'source.state_changed', timestamp: at.toISOString(), data: source };
}

export function replyFailedEvent(data: ReplyFailedData, at: Date): WebhookEvent {
  return { type: 'reply.failed', timestamp: at.toISOString(), data: { reviewId: data.reviewId, platform: data.platform, reason: data.reason } };
}

export function testEvent(webhookId: string, at: Date): WebhookEvent {
  return { type: 'webhook.test', timestamp: at.toISOString(), data: { webhookId, message: 'This is a test event; it carries no review.' } };
}

/** The body sent, byte for byte the string that is signed. */
export function eventBody(event: WebhookEvent): string {
  return JSON.stringify(event);
}

/**
 * A message id (`webhook-id`): fixed when the event is recorded and the same on
 * every attempt and replay, so receivers deduplicate by it. `msg_` as in the
 * specification's examples, then 128 random bits.
 */
export function newMessageId(): string {
  if (idPoolAt + ID_BYTES > idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = `msg_${idPool.toString('base64url', idPoolAt, idPoolAt + ID_BYTES)}`;
  idPoolAt += ID_BYTES;
  return id;
}

/** Random bytes for ids, filled 256 ids at a time (one call to the system's generator instead of one per event of an import). */
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idPoolAt = idPool.length;
