/**
 * Webhooks on the dashboard (CONTRACT §12, issue 27 item 5), Owner and Admin
 * only: the endpoints with their state and last delivery, add (the secret in
 * that answer only), the delivery log, replay, test, rotate the secret (the
 * new one in that answer only), disable, enable and remove. The work is the
 * admin API's: the same WebhooksService calls, taken `as` the signed-in person
 * so that the audit records name them. Another organization's endpoint is
 * 404, as if it did not exist.
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { WebhookEndpoint } from '../../store/webhook-types.ts';
import { endpointInput } from '../../webhooks/input.ts';
import type { WebhooksService } from '../../webhooks/service.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

/** The service, acting for the signed-in person. */
function service(deps: DashboardDeps, ctx: Context): WebhooksService {
  if (!deps.webhooks) throw new ApiError(503, 'unavailable', 'Webhooks are not available in this service.');
  return deps.webhooks.as(auth(ctx).user);
}

/** One of this organization's endpoints (an unknown id or another organization's is 404). */
async function ownEndpoint(deps: DashboardDeps, ctx: Context): Promise<WebhookEndpoint> {
  const endpoint = await service(deps, ctx).get(String(ctx.params.id)).catch(() => null);
  if (!endpoint || endpoint.orgId !== auth(ctx).org.id) throw notFound('Webhook endpoint');
  return endpoint;
}

/** An endpoint as the page shows it: `webhooks list`'s fields and why it is disabled; never its secrets. */
function view(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    state: e.state,
    disabledReason: e.state === 'disabled' ? e.disabledReason : null,
    createdAt: e.createdAt,
    lastDeliveryAt: e.lastDeliveryAt,
    failingSince: e.failingSince,
  };
}

/** An answer that holds a secret is stored by nobody on the way. */
function secretAnswer(ctx: Context, body: unknown, status = 200): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

export function listWebhooks(deps: DashboardDeps) {
  return async function listWebhooks(ctx: Context): Promise<void> {
    const webhooks = service(deps, ctx);
    const listed = await webhooks.list(auth(ctx).org.id);
    // `webhooks list` leaves out why an endpoint is disabled: read the disabled ones (a short list).
    const data = await Promise.all(
      listed.map(async (e) => (e.state === 'disabled' ? view(await webhooks.get(e.id)) : { ...e, disabledReason: null })),
    );
    ctx.body = { data };
  };
}

export function showWebhook(deps: DashboardDeps) {
  return async function showWebhook(ctx: Context): Promise<void> {
    ctx.body = view(await ownEndpoint(deps, ctx));
  };
}

export function createWebhook(deps: DashboardDeps) {
  return async function createWebhook(ctx: Context): Promise<void> {
    const input = endpointInput(await readJson(ctx));
    const created = await service(deps, ctx).create({ orgId: auth(ctx).org.id, url: input.url, events: input.events, description: input.description });
    secretAnswer(ctx, created, 201);
  };
}

export function webhookDeliveries(deps: DashboardDeps) {
  return async function webhookDeliveries(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    ctx.body = { data: await service(deps, ctx).deliveries(endpoint.id, ctx.query.status) };
  };
}

export function replayWebhook(deps: DashboardDeps) {
  return async function replayWebhook(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    ctx.body = await service(deps, ctx).replay(endpoint.id, String(ctx.params.messageId));
  };
}

export function testWebhook(deps: DashboardDeps) {
  return async function testWebhook(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    ctx.body = await service(deps, ctx).test(endpoint.id);
  };
}

export function rotateWebhookSecret(deps: DashboardDeps) {
  return async function rotateWebhookSecret(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    secretAnswer(ctx, await service(deps, ctx).rotateSecret(endpoint.id));
  };
}

export function enableWebhook(deps: DashboardDeps) {
  return async function enableWebhook(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    ctx.body = await service(deps, ctx).enable(endpoint.id);
  };
}

export function disableWebhook(deps: DashboardDeps) {
  return async function disableWebhook(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    ctx.body = await service(deps, ctx).disable(endpoint.id);
  };
}

export function removeWebhook(deps: DashboardDeps) {
  return async function removeWebhook(ctx: Context): Promise<void> {
    const endpoint = await ownEndpoint(deps, ctx);
    ctx.body = await service(deps, ctx).remove(endpoint.id);
  };
}
