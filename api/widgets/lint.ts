/** The SEO lint of a widget's JSON-LD, fed with the same data as the schema endpoint. */
import { lintWidgetSchema, type Finding } from '../../schema/lint.ts';
import type { Store, Widget } from '../store/types.ts';
import { asProductWidget, widgetInputs, widgetProduct, type WidgetInputs } from './public-data.ts';

/** `inputs`: the widget's statistics and displayed reviews when the caller has read them already. */
export async function lintWidget(store: Store, widget: Widget, now = new Date(), inputs?: WidgetInputs): Promise<Finding[]> {
  // A widget of one product is linted with it; one of the page's product, before any page names one, as the organization's.
  const read = async (): Promise<WidgetInputs> => widgetInputs(store, widget, now, typeof widget.options.productId === 'string' ? await widgetProduct(store, widget, undefined) : null);
  const [{ stats, jsonLdStats, reviews, product }, org] = await Promise.all([inputs ?? read(), store.orgs.get(widget.orgId)]);
  // What the markup is built from (jsonLdSources), about what it describes (a product widget's product).
  return lintWidgetSchema({ widget: asProductWidget(widget, product), stats: jsonLdStats, shownStats: stats, reviews, product, organizationName: org?.name ?? '' });
}
