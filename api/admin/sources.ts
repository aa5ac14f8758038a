/**
 * The admin API's review sources (CONTRACT §11), behind the CLI's `sources`
 * commands. Credentials arrive in the body (the CLI reads them from stdin) and
 * are never answered, logged or audited: the answers are the shapes of §11.
 */
import type Router from '@koa/router';
import { audit, OPERATOR } from '../dashboard/audit.ts';
import { sourceAuditTarget } from '../dashboard/audit-words.ts';
import { badRequest } from '../errors.ts';
import { addSourceBody, credentialsField, fullFlag, readBody, stringField } from '../sources/request.ts';
import type { SourcesService } from '../sources/service.ts';
import type { Store } from '../store/types.ts';
import { requireOrg } from './orgs.ts';

/** Where the CLI's credentials come from, for the 400 that says they are not an object. */
const CREDENTIALS = 'a JSON object (the CLI reads it from stdin)';

export function sourceRoutes(router: Router, store: Store, sources: SourcesService): void {
  router.post('/sources', async (ctx) => {
    const body = await readBody(ctx);
    const orgId = stringField(body, 'orgId', true);
    await requireOrg(store, orgId);
    const request = addSourceBody(body, CREDENTIALS);
    const added = await sources.add({ orgId, ...request });
    await audit(store, orgId, OPERATOR, 'source.connected', sourceAuditTarget(added));
    ctx.status = 201;
    ctx.body = { id: added.id, orgId: added.orgId, platform: added.platform, account: added.account, name: added.name, state: added.state, every: added.every, nextSyncAt: added.nextSyncAt };
  });

  router.get('/sources', async (ctx) => {
    const orgId = ctx.query.orgId;
    if (typeof orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, orgId);
    ctx.body = {
      data: (await sources.list(orgId)).map((s) => ({
        id: s.id,
        platform: s.platform,
        account: s.account,
        name: s.name,
        state: s.state,
        every: s.every,
        lastSyncAt: s.lastSyncAt,
        lastSuccessAt: s.lastSuccessAt,
        nextSyncAt: s.nextSyncAt,
        lastError: s.lastError,
        heldRemovals: s.heldRemovals,
        reviewCount: s.reviewCount ?? 0,
      })),
    };
  });

  router.post('/sources/:id/sync', async (ctx) => {
    ctx.body = await sources.sync(ctx.params.id!, fullFlag(ctx.query.full));
  });

  router.post('/sources/:id/reconnect', async (ctx) => {
    const credentials = credentialsField(await readBody(ctx), CREDENTIALS);
    const source = await sources.get(ctx.params.id!);
    const updated = await sources.reconnect(source.id, credentials);
    await audit(store, source.orgId, OPERATOR, 'source.reconnected', sourceAuditTarget(updated));
    ctx.body = { id: updated.id, orgId: updated.orgId, platform: updated.platform, account: updated.account, name: updated.name, state: updated.state, every: updated.every, nextSyncAt: updated.nextSyncAt };
  });

  // Held removals (CONTRACT §11): "Remove them" / "Keep them", by the operator.
  router.post('/sources/:id/release-removals', async (ctx) => {
    ctx.body = await sources.releaseRemovals(ctx.params.id!);
  });

  router.post('/sources/:id/keep-removals', async (ctx) => {
    ctx.body = await sources.keepRemovals(ctx.params.id!);
  });

  router.delete('/sources/:id', async (ctx) => {
    const { id, source } = await sources.remove(ctx.params.id!);
    await audit(store, source.orgId, OPERATOR, 'source.removed', sourceAuditTarget({ ...source, id }));
    ctx.body = { id, removed: true };
  });
}
