/** Read-only views every role sees: overview figures, and the audit log (Owner, Admin). Reviews: reviews.ts; widgets: widgets.ts. */
import type { Context } from 'koa';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';
import { buildSeries, seriesWindow } from '../overview-series.ts';

/**
 * The Overview's figures and chart data in one answer: the statistics of
 * /reviews/stats and the last 12 UTC months, both from the store's maintained
 * aggregates (no request reads every review; README "Overview"), and the reply
 * figures of the last 90 days (counted on the window; only its replied reviews read).
 */
export function overview({ store }: DashboardDeps) {
  return async function overview(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const now = new Date();
    const window = seriesWindow(now);
    const [stats, monthly, replies, widgets, members] = await Promise.all([
      store.reviews.stats({ orgId: org.id, now }),
      store.reviews.monthly({ orgId: org.id, ...window }),
      store.reviews.replyFigures({ orgId: org.id, now }),
      store.widgets.listByOrg(org.id),
      store.people.users.listByOrg(org.id),
    ]);
    ctx.body = {
      totalReviews: stats.totalReviews,
      averageRating: stats.averageRating,
      last30Days: stats.last30Days,
      last7Days: stats.last7Days,
      widgets: widgets.length,
      members: members.length,
      ratingDistribution: stats.ratingDistribution,
      platforms: stats.platforms,
      months: buildSeries(monthly, window),
      replies,
    };
  };
}

export function auditLog({ store }: DashboardDeps) {
  return async function auditLog(ctx: Context): Promise<void> {
    const records = await store.people.audit.listByOrg(auth(ctx).org.id, 200);
    ctx.body = { data: records.map(({ orgId: _org, ...rest }) => rest) };
  };
}
