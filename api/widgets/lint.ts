/** The SEO lint of a widget's JSON-LD, fed with the same data as the schema endpoint. */
import { lintWidgetSchema, type Finding } from '../../schema/lint.ts';
import type { Store, Widget } from '../store/types.ts';
import { widgetInputs, type WidgetInputs } from './public-data.ts';

/** `inputs`: the widget's statistics and displayed reviews when the caller has read them already. */
export async function lintWidget(store: Store, widget: Widget, now = new Date(), inputs?: WidgetInputs): Promise<Finding[]> {
  const [{ stats, reviews }, org] = await Promise.all([inputs ?? widgetInputs(store, widget, now), store.orgs.get(widget.orgId)]);
  return lintWidgetSchema({ widget, stats, reviews, organizationName: org?.name ?? '' });
}
