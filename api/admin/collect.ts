/**
 * The admin API's review page (CONTRACT §13), behind the CLI's `collect` and
 * `reviews pending|publish|reject` commands: every route calls the one
 * CollectService (api/collect). Decisions are audited as the operator's.
 */
import type Router from '@koa/router';
import { badRequest } from '../errors.ts';
import type { CollectService } from '../collect/service.ts';
import type { Store } from '../store/types.ts';
import { OPERATOR } from '../dashboard/audit.ts';
import { readJson } from './body.ts';
import { requireOrg } from './orgs.ts';

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be a JSON object.');
  return body as Record<string, unknown>;
}

function orgIdOf(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw badRequest('Give the organization: orgId', [{ parameter: 'orgId', message: 'is required' }]);
  return value;
}

export function collectRoutes(router: Router, store: Store, collect: CollectService): void {
  router.post('/collect/link', async (ctx) => {
    const body = objectBody(await readJson(ctx));
    const org = await requireOrg(store, orgIdOf(body.orgId));
    ctx.body = await collect.link(org.id, body.rotate === true ? OPERATOR : null);
  });

  router.post('/collect/settings', async (ctx) => {
    const body = objectBody(await readJson(ctx));
    const org = await requireOrg(store, orgIdOf(body.orgId));
    ctx.body = await collect.updateSettings(org.id, OPERATOR, { shareUrl: body.shareUrl, moderation: body.moderation });
  });

  router.get('/collect/pending', async (ctx) => {
    const org = await requireOrg(store, orgIdOf(ctx.query.orgId));
    ctx.body = { data: await collect.pending(org.id) };
  });

  router.post('/collect/reviews/:id/publish', async (ctx) => {
    ctx.body = await collect.publishPending(null, ctx.params.id!, OPERATOR);
  });

  router.post('/collect/reviews/:id/reject', async (ctx) => {
    const body = objectBody(await readJson(ctx));
    const { id, status } = await collect.reject(null, ctx.params.id!, body.reason, OPERATOR);
    ctx.body = { id, status };
  });
}
