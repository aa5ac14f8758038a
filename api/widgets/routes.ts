/**
 * Widget routes: the snippet and JSON-LD for developers (API key), the public
 * widget data for browsers (no key, CORS, cacheable, limited per address), the
 * static loader and chunks, and the demo page.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { loaderScriptFor, snippetFor } from '../../widget/src/snippet.ts';
import { layoutHeight } from '../../widget/src/layout-height.ts';
import type { RouteMethodRegistrar } from '../app.ts';
import type { AuthState } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import { METHODS } from 'node:http';
import { methodNotAllowed, notFound } from '../errors.ts';
import { validQuery } from '../openapi/params.ts';
import { isRecordId } from '../store/ids.ts';
import type { Store, Widget } from '../store/types.ts';
import { sendAsset, type WidgetAssets } from './assets.ts';
import { assetCacheControl, assetType, type CachedPublic, etagOf, formsOf, matches, PUBLIC_CACHE, PUBLIC_CORS, PUBLIC_TTL_MS, type PublicWidgetCache, sendForm } from './public-answers.ts';
import { demoPage } from './demo-page.ts';
import { demoCsp, WIDGET_HTML_CSP } from './page-policies.ts';
import { widgetInputs, widgetJsonLd, widgetProduct } from './public-data.ts';
import { widgetHtml } from './widget-html.tsx';

export interface WidgetRouteDeps {
  router: Router;
  get: RouteMethodRegistrar;
  apiPipeline: Middleware[];
  publicLimit: Middleware;
  /** The public data's cache, shared with the fast path in front of Koa (api/public-path.ts). */
  publicCache: PublicWidgetCache;
  store: Store;
  config: Config;
  assets: WidgetAssets;
}

async function findWidget(store: Store, id: string, orgId?: string): Promise<Widget> {
  const widget = isRecordId(id, 'wdg') ? await store.widgets.get(id) : null;
  // Another organization's widget is 404, never 403: ids do not leak.
  if (!widget || (orgId !== undefined && widget.orgId !== orgId)) throw notFound('Widget');
  return widget;
}

function noParameters(operation: 'getEmbed', ctx: Context): void {
  validQuery(operation, ctx.querystring);
}

export function registerWidgetRoutes(deps: WidgetRouteDeps): void {
  const { router, get, apiPipeline, publicLimit, publicCache, store, config, assets } = deps;
  const origin = config.publicUrl;
  const publicBody = (widget: Widget, productId?: string): Promise<CachedPublic> => publicCache.get(widget, productId);

  get('/api/v1/widgets/:id/embed', ...apiPipeline, async function embed(ctx: Context) {
    noParameters('getEmbed', ctx);
    const { org } = ctx.state.auth as AuthState;
    const widget = await findWidget(store, ctx.params.id as string, org.id);
    const input = { origin, widgetId: widget.id, height: layoutHeight(widget.layout, widget.options) };
    ctx.body = { data: { widgetId: widget.id, snippet: snippetFor(input), script: loaderScriptFor(input) } };
  });

  get('/api/v1/widgets/:id/schema', ...apiPipeline, async function schema(ctx: Context) {
    const { productId } = validQuery('getSchema', ctx.querystring);
    const { org } = ctx.state.auth as AuthState;
    const widget = await findWidget(store, ctx.params.id as string, org.id);
    const product = await widgetProduct(store, widget, productId);
    ctx.body = { data: widgetJsonLd(widget, await widgetInputs(store, widget, new Date(), product)) };
  });

  const cors = (ctx: Context): void => {
    for (const [name, value] of PUBLIC_CORS) ctx.set(name, value);
  };

  // The public data also answers OPTIONS (CORS preflight): its 405 says so, like its OPTIONS answer's Allow.
  router.register('/public/v1/widgets/:id', METHODS.filter((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m)), [
    async function notAllowed(): Promise<void> {
      throw methodNotAllowed(['GET', 'HEAD', 'OPTIONS']);
    },
  ]);
  router.options('/public/v1/widgets/:id', async function preflight(ctx: Context) {
    cors(ctx);
    ctx.set('Allow', 'GET, HEAD, OPTIONS');
    ctx.status = 204;
  });
  // CORS first: a browser must be able to read the 429 too.
  const publicCors = function publicCors(ctx: Context, next: () => Promise<unknown>): Promise<unknown> {
    cors(ctx);
    return next();
  };
  get('/public/v1/widgets/:id', publicCors, publicLimit, async function publicWidget(ctx: Context) {
    const { productId } = ctx.querystring ? validQuery('getPublicWidget', ctx.querystring) : {};
    const widget = await findWidget(store, ctx.params.id as string);
    const cached = await publicBody(widget, productId);
    ctx.set('ETag', cached.etag);
    ctx.set('Cache-Control', PUBLIC_CACHE);
    ctx.set('Vary', 'Accept-Encoding');
    if (matches(ctx.get('if-none-match'), cached.etag)) {
      ctx.status = 304;
      return;
    }
    sendForm(ctx, cached, 'application/json; charset=utf-8');
  });

  /**
   * The server-rendered widget, for server-side includes (CONTRACT §8). Its
   * only parameter, `lang`, is the including page's language (used when the
   * widget's locale is auto). Cached like the data: one render per widget,
   * language and 5-second window.
   */
  const htmlCache = new Map<string, CachedPublic>();
  const HTML_CACHE_MAX = 10_000;
  get('/public/v1/widgets/:id/html', publicCors, publicLimit, async function publicWidgetHtml(ctx: Context) {
    const { lang = null, productId } = validQuery('getPublicWidgetHtml', ctx.querystring);
    const widget = await findWidget(store, ctx.params.id as string);
    const { body: json, version } = await publicBody(widget, productId);
    const key = `${widget.id} ${lang ?? ''} ${productId ?? ''}`;
    let hit = htmlCache.get(key);
    if (!hit || hit.version !== version || hit.expires <= Date.now()) {
      const body = widgetHtml((JSON.parse(json) as { data: Parameters<typeof widgetHtml>[0] }).data, lang, Date.now(), productId ?? null);
      const bytes = Buffer.from(body, 'utf8');
      const etag = etagOf(body);
      hit = { version, body, bytes, etag, forms: await formsOf(bytes, etag, hit), expires: Date.now() + PUBLIC_TTL_MS };
      if (htmlCache.size >= HTML_CACHE_MAX) htmlCache.clear();
      htmlCache.set(key, hit);
    }
    ctx.set('ETag', hit.etag);
    ctx.set('Cache-Control', PUBLIC_CACHE);
    ctx.set('Vary', 'Accept-Encoding');
    ctx.set('Content-Security-Policy', WIDGET_HTML_CSP);
    if (matches(ctx.get('if-none-match'), hit.etag)) {
      ctx.status = 304;
      return;
    }
    sendForm(ctx, hit, 'text/html; charset=utf-8');
  });

  get('/widget/:file', async function widgetFile(ctx: Context) {
    const asset = assets.files.get(ctx.params.file as string);
    if (!asset) throw notFound('Widget file');
    ctx.set('Cache-Control', assetCacheControl(asset));
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('Access-Control-Allow-Origin', '*');
    sendAsset(ctx, asset, assetType(asset));
  });

  // The demo exists only on the embedded default: on MongoDB /demo is the router's 404, and
  // an anonymous request never reaches the store. It is limited per address like the public data.
  if (store.kind === 'embedded') {
    let demoOrgId: string | null = null;
    get('/demo', publicLimit, async function demo(ctx: Context) {
      const page = await demoPage(store, origin, demoOrgId);
      if (page === null) throw notFound('The demo (only on the embedded default)');
      demoOrgId = page.orgId;
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Security-Policy', demoCsp(new URL(origin).origin));
      ctx.set('X-Frame-Options', 'DENY');
      ctx.body = page.html;
    });
  }
}
