/** Read-only views every role sees: overview figures, the latest reviews, the widgets, and the audit log (Owner, Admin). */
import type { Context } from 'koa';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

export function overview({ store }: DashboardDeps) {
  return async function overview(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const [stats, widgets, members] = await Promise.all([
      store.reviews.stats({ orgId: org.id, now: new Date() }),
      store.widgets.listByOrg(org.id),
      store.people.users.listByOrg(org.id),
    ]);
    ctx.body = { totalReviews: stats.totalReviews, averageRating: stats.averageRating, last30Days: stats.last30Days, widgets: widgets.length, members: members.length };
  };
}

export function widgetList({ store }: DashboardDeps) {
  return async function widgetList(ctx: Context): Promise<void> {
    ctx.body = { data: (await store.widgets.listByOrg(auth(ctx).org.id)).map((w) => ({ id: w.id, name: w.name, layout: w.layout, createdAt: w.createdAt })) };
  };
}

export function auditLog({ store }: DashboardDeps) {
  return async function auditLog(ctx: Context): Promise<void> {
    const records = await store.people.audit.listByOrg(auth(ctx).org.id, 200);
    ctx.body = { data: records.map(({ orgId: _org, ...rest }) => rest) };
  };
}
