/**
 * What the stores record in the outbox when a review changes (CONTRACT §12):
 * `review.created` for a review stored for the first time (or listed again
 * after it was removed), `review.updated` when a field of the review as the
 * API shows it changed, `review.removed` with its last version. A re-import of
 * identical data records nothing. Pure functions: the stores call them inside
 * the write that stores the change, so event and change are one durable write.
 */
import { publicReview } from '../reviews/routes.ts';
import { view } from '../sources/view.ts';
import type { Review, Source } from '../store/types.ts';
import type { OutboxMessage } from '../store/webhook-types.ts';
import { eventBody, newMessageId, reviewEvent, sourceStateChangedEvent, type PublicSource } from './events.ts';
import type { ReviewEventType } from './event-types.ts';

function message(orgId: string, type: ReviewEventType, review: Review, at: Date): OutboxMessage {
  return { id: newMessageId(), orgId, type, body: eventBody(reviewEvent(type, review, at)), createdAt: at.toISOString(), endpointId: null };
}

/** The API's view of a review, as text: equal texts mean nothing a receiver sees changed. */
function shown(review: Review): string {
  return JSON.stringify(publicReview(review));
}

/** The event type for storing `after` where `before` was (null: not there, or removed); null when nothing shown changed. */
export function changeType(before: Review | null, after: Review): 'review.created' | 'review.updated' | null {
  if (before === null) return 'review.created';
  return shown(before) === shown(after) ? null : 'review.updated';
}

/** The event for storing `after` where `before` was (null: not there, or removed); null when nothing shown changed. */
export function changeMessage(before: Review | null, after: Review, at: Date): OutboxMessage | null {
  const type = changeType(before, after);
  return type === null ? null : message(after.orgId, type, after, at);
}

/** The body of a review event recorded at `createdAt`: byte for byte what changeMessage puts in `body`. */
export function reviewEventBody(type: ReviewEventType, review: Review, createdAt: string): string {
  return eventBody(reviewEvent(type, review, new Date(createdAt)));
}

export function removedMessage(review: Review, at: Date): OutboxMessage {
  return message(review.orgId, 'review.removed', review, at);
}

/** The source as `sources list` shows it. */
export function publicSource(source: Source, reviewCount: number): PublicSource {
  const { orgId: _org, ...shown } = view(source);
  return { ...shown, reviewCount };
}

const ANNOUNCED_STATES: readonly Source['state'][] = ['needs_reauth', 'failing', 'active'];

/** Whether storing `after` where `before` was is a state change receivers are told of. */
export function announcesState(before: Source, after: Source): boolean {
  return before.state !== after.state && ANNOUNCED_STATES.includes(after.state);
}

/** The `source.state_changed` event for `after` (call when announcesState). */
export function sourceStateMessage(after: Source, reviewCount: number, at: Date): OutboxMessage {
  return {
    id: newMessageId(), orgId: after.orgId, type: 'source.state_changed', body: eventBody(sourceStateChangedEvent(publicSource(after, reviewCount), at)),
    createdAt: at.toISOString(), endpointId: null,
  };
}
