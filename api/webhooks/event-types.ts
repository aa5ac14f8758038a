/**
 * The event types of CONTRACT §12, on their own (no imports) so that the
 * OpenAPI document can describe them without pulling in the payload builder.
 */
export const REVIEW_EVENT_TYPES = ['review.created', 'review.updated', 'review.removed'] as const;
export const SOURCE_EVENT_TYPES = ['source.state_changed'] as const;
/** A reply the platform would not take (CONTRACT §15): not in the default subscription, an endpoint names it. */
export const REPLY_EVENT_TYPES = ['reply.failed'] as const;
/** Every type an endpoint can subscribe to. `webhook.test` is sent on demand to one endpoint, whatever it subscribed to. */
export const SUBSCRIBABLE_EVENT_TYPES = [...REVIEW_EVENT_TYPES, ...SOURCE_EVENT_TYPES, ...REPLY_EVENT_TYPES] as const;
export const EVENT_TYPES = [...SUBSCRIBABLE_EVENT_TYPES, 'webhook.test'] as const;

export type ReviewEventType = (typeof REVIEW_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

/** What a new endpoint subscribes to when it names no types: every review.* and source.* type. */
export const DEFAULT_SUBSCRIPTION: readonly EventType[] = [...REVIEW_EVENT_TYPES, ...SOURCE_EVENT_TYPES];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** Whether an endpoint subscribed to `subscribed` receives an event of `type` (a test event reaches whoever it is sent to). */
export function subscribes(subscribed: readonly EventType[], type: EventType): boolean {
  return type === 'webhook.test' || subscribed.includes(type);
}
