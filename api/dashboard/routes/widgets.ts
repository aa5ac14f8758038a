/**
 * Widgets in the dashboard: the list and one widget (every role), the live
 * preview of unsaved options (every role: it changes nothing), and create /
 * update (Owner, Admin). Input goes through the admin API's own validation
 * (`parseWidgetCreate`, `parseWidgetUpdate`), the preview through the public
 * endpoint's own data function and the CLI's SEO lint: what the builder shows
 * is what the snippet will show.
 */
import type { Context } from 'koa';
import { readJson } from '../../admin/body.ts';
import { checkWidgetProduct, checkWidgetSources, createWidget, newWidget, parseWidgetCreate, parseWidgetUpdate } from '../../admin/widgets.ts';
import { badRequest, notFound } from '../../errors.ts';
import { isRecordId } from '../../store/ids.ts';
import type { Store, Widget } from '../../store/types.ts';
import { lintWidget } from '../../widgets/lint.ts';
import { publicWidgetDataOf, widgetInputs, widgetProduct } from '../../widgets/public-data.ts';
import { layoutHeight } from '../../../widget/src/layout-height.ts';
import { snippetFor } from '../../../widget/src/snippet.ts';
import { audit } from '../audit.ts';
import { widgetChanges } from '../widget-changes.ts';
import { auth } from '../session.ts';
import type { DashboardDeps } from './deps.ts';

/** Id of the widget a preview renders: never stored, never a real widget's. */
export const PREVIEW_ID = 'wdg_preview';

/** The fields of the create body the dashboard accepts: the admin API's, without `orgId` (the session's organization). */
function withoutOrg(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('The request body must be a JSON object.');
  const body = raw as Record<string, unknown>;
  if ('orgId' in body) throw badRequest('orgId is not a known field.', [{ parameter: 'orgId', message: 'is not a known field' }]);
  return body;
}

async function ownWidget(store: Store, orgId: string, id: string): Promise<Widget> {
  const widget = isRecordId(id, 'wdg') ? await store.widgets.get(id) : null;
  // Another organization's widget is "not found", never "forbidden": ids do not leak.
  if (!widget || widget.orgId !== orgId) throw notFound('Widget');
  return widget;
}

/** A widget as the builder reads it, with the exact snippet of GET /api/v1/widgets/{id}/embed. */
function widgetView(widget: Widget, origin: string) {
  const { orgId: _org, ...rest } = widget;
  return { ...rest, snippet: snippetFor({ origin, widgetId: widget.id, height: layoutHeight(widget.layout, widget.options) }) };
}

export function widgetList({ store }: DashboardDeps) {
  return async function widgetList(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const [widgets, stats, products, sources] = await Promise.all([
      store.widgets.listByOrg(org.id),
      store.reviews.stats({ orgId: org.id, now: new Date() }),
      store.products.list(org.id),
      store.sources.listByOrg(org.id),
    ]);
    ctx.body = {
      data: widgets.map((w) => ({ id: w.id, name: w.name, layout: w.layout, subject: w.subject.name, createdAt: w.createdAt, updatedAt: w.updatedAt })),
      // The organization's platforms, for the builder's platform choices.
      platforms: stats.platforms.map((p) => ({ platform: p.platform, count: p.count })),
      // The catalog, for the builder's product choice (one product, or the page's product to preview with).
      products: products.map((p) => ({ id: p.id, name: p.name })),
      // The organization's sources, for the builder's source choice (a chain's locations: CONTRACT §15).
      sources: sources.map((s) => ({ id: s.id, name: s.name, platform: s.platform })),
    };
  };
}

export function showWidget({ store, config }: DashboardDeps) {
  return async function showWidget(ctx: Context): Promise<void> {
    ctx.body = widgetView(await ownWidget(store, auth(ctx).org.id, String(ctx.params.id)), config.publicUrl);
  };
}

/** The public data and the SEO findings of unsaved options: nothing is stored. */
export function previewWidget({ store }: DashboardDeps) {
  return async function previewWidget(ctx: Context): Promise<void> {
    const { org } = auth(ctx);
    const { previewProductId, ...body } = withoutOrg(await readJson(ctx));
    const input = parseWidgetCreate({ ...body, orgId: org.id });
    // Only this organization's sources: a preview never shows another organization's reviews.
    await checkWidgetSources(store, org.id, input.options);
    const widget = newWidget(input, PREVIEW_ID);
    const now = new Date();
    // The page's product (productFrom: "page") is the one the builder picked to preview with.
    if (previewProductId !== undefined && typeof previewProductId !== 'string') throw badRequest('previewProductId must be a catalog product id.', [{ parameter: 'previewProductId', message: 'must be a string' }]);
    const requested = widget.options.productFrom === 'page' ? previewProductId : undefined;
    const product = widget.options.productFrom === 'page' && requested === undefined ? null : await widgetProduct(store, widget, requested);
    // Read once: the preview and its lint see the same statistics and reviews.
    const inputs = await widgetInputs(store, widget, now, product);
    const findings = await lintWidget(store, widget, now, inputs);
    const data = publicWidgetDataOf(widget, inputs);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data, findings };
  };
}

export function createDashboardWidget({ store, config }: DashboardDeps) {
  return async function createDashboardWidget(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const widget = await createWidget(store, parseWidgetCreate({ ...withoutOrg(await readJson(ctx)), orgId: org.id }));
    await audit(store, org.id, user, 'widget.created', { id: widget.id, label: widget.name }, { layout: widget.layout });
    ctx.status = 201;
    ctx.body = widgetView(widget, config.publicUrl);
  };
}

export function updateDashboardWidget({ store, config }: DashboardDeps) {
  return async function updateDashboardWidget(ctx: Context): Promise<void> {
    const { user, org } = auth(ctx);
    const widget = await ownWidget(store, org.id, String(ctx.params.id));
    const patch = parseWidgetUpdate(await readJson(ctx));
    await checkWidgetProduct(store, org.id, patch.options);
    const updated = await store.widgets.update(widget.id, patch);
    if (!updated) throw notFound('Widget');
    // Only what moved, in the builder's words; a save that changed nothing leaves no record.
    const changes = widgetChanges(widget, updated);
    if (changes.length > 0) await audit(store, org.id, user, 'widget.changed', { id: widget.id, label: updated.name }, { changes: changes.join('; ') });
    ctx.body = widgetView(updated, config.publicUrl);
  };
}
