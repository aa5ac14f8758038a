/**
 * The body of "create an endpoint", as the admin API and the dashboard both
 * read it: a JSON object of `url`, `events` and `description` (and whatever
 * fields the caller names besides, e.g. the admin API's `orgId`). Only the
 * shape is checked here; the values (https:, no private address, known event
 * types, description length) are checked once, by WebhooksService.create,
 * whose messages name the field for the form that sent it.
 */
import { badRequest } from '../errors.ts';

export interface EndpointInput {
  url: unknown;
  events: unknown;
  description: unknown;
}

const FIELDS = ['url', 'events', 'description'];

export function endpointInput(body: unknown, extra: readonly string[] = []): EndpointInput & Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object with url, events and description.');
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !FIELDS.includes(k) && !extra.includes(k));
  if (unknown.length > 0) {
    throw badRequest(`${unknown.length === 1 ? 'This field is' : 'These fields are'} not known: ${unknown.map((k) => JSON.stringify(k.slice(0, 64))).join(', ')}.`, unknown.map((k) => ({ parameter: k.slice(0, 64), message: 'is not a known field' })));
  }
  if (record.url === undefined) throw badRequest('url is required: the https:// address to send events to.', [{ parameter: 'url', message: 'is required' }]);
  return { ...record, url: record.url, events: record.events, description: record.description };
}
