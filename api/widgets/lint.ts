/** The SEO lint of a widget's JSON-LD, fed with the same data as the schema endpoint. */
import { lintWidgetSchema, type Finding } from '../../schema/lint.ts';
import type { Store, Widget } from '../store/types.ts';
import { displayedReviews, widgetStats } from './public-data.ts';

export async function lintWidget(store: Store, widget: Widget, now = new Date()): Promise<Finding[]> {
  const [stats, reviews, org] = await Promise.all([widgetStats(store, widget, now), displayedReviews(store, widget), store.orgs.get(widget.orgId)]);
  return lintWidgetSchema({ widget, stats, reviews, organizationName: org?.name ?? '' });
}
