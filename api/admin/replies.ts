/**
 * The admin API's replies (CONTRACT §15), behind the CLI's `replies`
 * commands. The operator publishes and deletes (the role checks of the
 * dashboard do not apply: OPERATOR_CALLER); the answers are §15's shapes.
 */
import type Router from '@koa/router';
import { badRequest } from '../errors.ts';
import { listView, OPERATOR_CALLER, parseReplyState, publishView, type RepliesService } from '../replies/service.ts';
import { readBody } from '../sources/request.ts';
import type { Store } from '../store/types.ts';
import { requireOrg } from './orgs.ts';

export function replyRoutes(router: Router, store: Store, replies: RepliesService): void {
  router.get('/replies', async (ctx) => {
    const orgId = ctx.query.orgId;
    if (typeof orgId !== 'string') throw badRequest('Give the organization: ?orgId=…', [{ parameter: 'orgId', message: 'is required' }]);
    await requireOrg(store, orgId);
    ctx.body = { data: (await replies.list(orgId, parseReplyState(ctx.query.state))).map(listView) };
  });

  router.get('/replies/:reviewId', async (ctx) => {
    const reviewId = ctx.params.reviewId!;
    ctx.body = publishView(await replies.get(await replies.orgOf(reviewId), reviewId));
  });

  router.post('/replies/:reviewId/publish', async (ctx) => {
    const body = await readBody(ctx);
    const reviewId = ctx.params.reviewId!;
    if (body.now !== undefined && typeof body.now !== 'boolean') throw badRequest('now must be true or false', [{ parameter: 'now', message: 'must be a boolean' }]);
    const published = await replies.publish(OPERATOR_CALLER, await replies.orgOf(reviewId), reviewId, body.text, { now: body.now === true });
    ctx.body = publishView(published);
  });

  router.delete('/replies/:reviewId', async (ctx) => {
    const reviewId = ctx.params.reviewId!;
    const removed = await replies.remove(OPERATOR_CALLER, await replies.orgOf(reviewId), reviewId);
    ctx.body = { reviewId: removed.reviewId, state: removed.state };
  });
}
