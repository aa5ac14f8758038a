/** The words the Webhooks page uses for event types, states and why an endpoint was disabled. */
import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../api.ts';
import { formatDateTime } from '../../format.ts';

/**
 * Every type an endpoint can subscribe to, in the order of the checkboxes, with what it means.
 * `optIn`: left unchecked on a new endpoint, as the API's default subscription leaves it out.
 */
export const EVENT_TYPES: { type: WebhookEventType; hint: string; optIn?: true }[] = [
  { type: 'review.created', hint: 'A review arrived (import, upload or source sync).' },
  { type: 'review.updated', hint: 'A field of a review as the API shows it changed (a new or changed reply too).' },
  { type: 'review.removed', hint: 'A review was removed at its source.' },
  { type: 'source.state_changed', hint: 'A review source needs reconnecting, is failing, or works again.' },
  { type: 'reply.failed', hint: 'A reply could not be posted on its platform; the event says why.', optIn: true },
];

export const DELIVERY_STATUS_LABELS: Record<WebhookDelivery['status'], string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

/** Enabled, Failing (enabled, every attempt failing), or Disabled. */
export function stateOf(e: WebhookEndpoint): { label: string; badge: string } {
  if (e.state === 'disabled') return { label: 'Disabled', badge: 'badge-hook-disabled' };
  if (e.failingSince) return { label: 'Failing', badge: 'badge-hook-failing' };
  return { label: 'Enabled', badge: 'badge-hook-enabled' };
}

/** Why the service (not a person) disabled the endpoint, as a sentence; null when it is enabled or a person disabled it. */
export function disabledByService(e: WebhookEndpoint): string | null {
  if (e.state !== 'disabled' || !e.disabledReason || e.disabledReason === 'manual') return null;
  if (/410/.test(e.disabledReason)) return 'it answered 410 Gone, which says the receiver is gone for good';
  if (/^every delivery failed/.test(e.disabledReason)) return `every delivery failed for 5 days (since ${formatDateTime(e.failingSince, 'then')})`;
  return e.disabledReason;
}

/** The endpoint's name in buttons and messages: its description, else its host and path. */
export function endpointName(e: { url: string; description: string }): string {
  if (e.description.trim()) return e.description.trim();
  try {
    const u = new URL(e.url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return e.url;
  }
}
