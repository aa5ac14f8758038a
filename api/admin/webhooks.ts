/**
 * The admin API's webhook endpoints (CONTRACT §12), behind the CLI's
 * `webhooks` commands; the answers are the shapes of §12.
 */
import type Router from '@koa/router';
import { badRequest } from '../errors.ts';
import type { Store } from '../store/types.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import { endpointInput } from '../webhooks/input.ts';
import { readJson } from './body.ts';
import { requireOrg } from './orgs.ts';

export function webhookRoutes(router: Router, store: Store, webhooks: WebhooksService): void {
  router.post('/webhooks', async (ctx) => {
    const body = endpointInput(await readJson(ctx), ['orgId']);
    if (typeof body.orgId !== 'string') throw badRequest('orgId must be a string', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, body.orgId);
    ctx.status = 201;
    ctx.body = await webhooks.create({ orgId: body.orgId, url: body.url, events: body.events, description: body.description });
  });
  router.get('/webhooks', async (ctx) => {
    const orgId = ctx.query.orgId;
    if (typeof orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, orgId);
    ctx.body = { data: await webhooks.list(orgId) };
  });
  router.get('/webhooks/:id/deliveries', async (ctx) => {
    ctx.body = { data: await webhooks.deliveries(ctx.params.id!, ctx.query.status) };
  });
  router.post('/webhooks/:id/replay/:messageId', async (ctx) => {
    ctx.body = await webhooks.replay(ctx.params.id!, ctx.params.messageId!);
  });
  router.post('/webhooks/:id/test', async (ctx) => {
    ctx.body = await webhooks.test(ctx.params.id!);
  });
  router.post('/webhooks/:id/rotate-secret', async (ctx) => {
    ctx.body = await webhooks.rotateSecret(ctx.params.id!);
  });
  router.post('/webhooks/:id/enable', async (ctx) => {
    ctx.body = await webhooks.enable(ctx.params.id!);
  });
  router.post('/webhooks/:id/disable', async (ctx) => {
    ctx.body = await webhooks.disable(ctx.params.id!);
  });
  router.delete('/webhooks/:id', async (ctx) => {
    ctx.body = await webhooks.remove(ctx.params.id!);
  });
}
