/**
 * Widget routes: the snippet and JSON-LD for developers (API key), the public
 * widget data for browsers (no key, CORS, cacheable, limited per address), the
 * static loader and chunks, and the demo page.
 */
import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { buildWidgetJsonLd } from '../../schema/build.ts';
import { loaderScriptFor, snippetFor } from '../../widget/src/snippet.ts';
import { layoutHeight } from '../../widget/src/layout-height.ts';
import type { RouteMethodRegistrar } from '../app.ts';
import type { AuthState } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import { invalidParameters, notFound } from '../errors.ts';
import { validateQuery } from '../openapi/params.ts';
import { isRecordId } from '../store/ids.ts';
import type { Store, Widget } from '../store/types.ts';
import { sendAsset, type WidgetAssets } from './assets.ts';
import { demoPage } from './demo-page.ts';
import { displayedReviews, publicWidgetData, widgetStats } from './public-data.ts';
import { widgetHtml } from './widget-html.tsx';

export interface WidgetRouteDeps {
  router: Router;
  get: RouteMethodRegistrar;
  apiPipeline: Middleware[];
  publicLimit: Middleware;
  store: Store;
  config: Config;
  assets: WidgetAssets;
}

/** Browsers may reuse public data for a minute, and once more while revalidating within the next: a hidden review (moderation) is gone from every cache within two minutes. */
const PUBLIC_CACHE = 'public, max-age=60, stale-while-revalidate=60';
/**
 * The public endpoint needs no key, so its answer is also kept here for a few
 * seconds per widget version: many visitors cost one statistics query, not one
 * each (with MongoDB that is an aggregation). New reviews show within that time.
 */
const PUBLIC_TTL_MS = 5000;
const PUBLIC_CACHE_MAX = 10_000;

interface CachedPublic {
  version: string;
  body: string;
  /** The body's UTF-8 bytes, encoded once: every visitor's answer writes them as they are. */
  bytes: Buffer;
  etag: string;
  expires: number;
}

/**
 * What a widget's public answer depends on, as one string. The embedded store
 * hands out the same frozen widget object until the widget changes, so the
 * string is built once per version rather than on every visitor's request.
 */
const versions = new WeakMap<Widget, string>();

function widgetVersion(widget: Widget): string {
  let version = versions.get(widget);
  if (version === undefined) {
    version = `${widget.updatedAt}|${widget.layout}|${JSON.stringify(widget.options)}|${JSON.stringify(widget.subject)}`;
    if (Object.isFrozen(widget)) versions.set(widget, version);
  }
  return version;
}

/** Whether If-None-Match names `etag`: one tag, or a comma-separated list of them. */
function matches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch === etag || (ifNoneMatch.includes(',') && ifNoneMatch.split(/\s*,\s*/).includes(etag));
}

async function findWidget(store: Store, id: string, orgId?: string): Promise<Widget> {
  const widget = isRecordId(id, 'wdg') ? await store.widgets.get(id) : null;
  // Another organization's widget is 404, never 403: ids do not leak.
  if (!widget || (orgId !== undefined && widget.orgId !== orgId)) throw notFound('Widget');
  return widget;
}

function noParameters(operation: 'getEmbed' | 'getSchema', ctx: Context): void {
  const parsed = validateQuery(operation, new URLSearchParams(ctx.querystring));
  if (!parsed.ok) throw invalidParameters(parsed.details, parsed.message);
}

export function registerWidgetRoutes(deps: WidgetRouteDeps): void {
  const { router, get, apiPipeline, publicLimit, store, config, assets } = deps;
  const origin = config.publicUrl;
  const publicCache = new Map<string, CachedPublic>();

  /** Computations under way, by widget id and version: concurrent misses share one (single-flight). */
  const computing = new Map<string, Promise<CachedPublic>>();

  const publicBody = (widget: Widget): Promise<CachedPublic> => {
    const version = widgetVersion(widget);
    const hit = publicCache.get(widget.id);
    if (hit && hit.version === version && hit.expires > Date.now()) return Promise.resolve(hit);
    const flight = `${widget.id}|${version}`;
    let pending = computing.get(flight);
    if (!pending) {
      pending = (async () => {
        const body = JSON.stringify({ data: await publicWidgetData(store, widget) });
        const entry = { version, body, bytes: Buffer.from(body, 'utf8'), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, expires: Date.now() + PUBLIC_TTL_MS };
        if (publicCache.size >= PUBLIC_CACHE_MAX) publicCache.clear();
        publicCache.set(widget.id, entry);
        return entry;
      })().finally(() => computing.delete(flight));
      computing.set(flight, pending);
    }
    return pending;
  };

  get('/api/v1/widgets/:id/embed', ...apiPipeline, async function embed(ctx: Context) {
    noParameters('getEmbed', ctx);
    const { org } = ctx.state.auth as AuthState;
    const widget = await findWidget(store, ctx.params.id as string, org.id);
    const input = { origin, widgetId: widget.id, height: layoutHeight(widget.layout, widget.options) };
    ctx.body = { data: { widgetId: widget.id, snippet: snippetFor(input), script: loaderScriptFor(input) } };
  });

  get('/api/v1/widgets/:id/schema', ...apiPipeline, async function schema(ctx: Context) {
    noParameters('getSchema', ctx);
    const { org } = ctx.state.auth as AuthState;
    const widget = await findWidget(store, ctx.params.id as string, org.id);
    const [stats, reviews] = await Promise.all([widgetStats(store, widget, new Date()), displayedReviews(store, widget)]);
    ctx.body = { data: buildWidgetJsonLd({ widget, stats, reviews }) };
  });

  const cors = (ctx: Context): void => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    ctx.set('Access-Control-Max-Age', '86400');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
  };

  router.options('/public/v1/widgets/:id', async function preflight(ctx: Context) {
    cors(ctx);
    ctx.set('Allow', 'GET, HEAD, OPTIONS');
    ctx.status = 204;
  });
  // CORS first: a browser must be able to read the 429 too.
  const publicCors = async function publicCors(ctx: Context, next: () => Promise<unknown>): Promise<void> {
    cors(ctx);
    await next();
  };
  get('/public/v1/widgets/:id', publicCors, publicLimit, async function publicWidget(ctx: Context) {
    if (ctx.querystring) {
      const parsed = validateQuery('getPublicWidget', new URLSearchParams(ctx.querystring));
      if (!parsed.ok) throw invalidParameters(parsed.details, parsed.message);
    }
    const widget = await findWidget(store, ctx.params.id as string);
    const { bytes, etag } = await publicBody(widget);
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', PUBLIC_CACHE);
    ctx.set('Vary', 'Accept-Encoding');
    if (matches(ctx.get('if-none-match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = bytes;
  });

  /**
   * The server-rendered widget, for server-side includes (CONTRACT §8). Its
   * only parameter, `lang`, is the including page's language (used when the
   * widget's locale is auto). Cached like the data: one render per widget,
   * language and 5-second window.
   */
  const htmlCache = new Map<string, CachedPublic>();
  get('/public/v1/widgets/:id/html', publicCors, publicLimit, async function publicWidgetHtml(ctx: Context) {
    const parsed = validateQuery('getPublicWidgetHtml', new URLSearchParams(ctx.querystring));
    if (!parsed.ok) throw invalidParameters(parsed.details, parsed.message);
    const lang = parsed.value.lang ?? null;
    const widget = await findWidget(store, ctx.params.id as string);
    const { body: json, version } = await publicBody(widget);
    const key = `${widget.id} ${lang ?? ''}`;
    let hit = htmlCache.get(key);
    if (!hit || hit.version !== version || hit.expires <= Date.now()) {
      const body = widgetHtml((JSON.parse(json) as { data: Parameters<typeof widgetHtml>[0] }).data, lang);
      hit = { version, body, bytes: Buffer.from(body, 'utf8'), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`, expires: Date.now() + PUBLIC_TTL_MS };
      if (htmlCache.size >= PUBLIC_CACHE_MAX) htmlCache.clear();
      htmlCache.set(key, hit);
    }
    ctx.set('ETag', hit.etag);
    ctx.set('Cache-Control', PUBLIC_CACHE);
    ctx.set('Vary', 'Accept-Encoding');
    if (matches(ctx.get('if-none-match'), hit.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = hit.bytes;
  });

  get('/widget/:file', async function widgetFile(ctx: Context) {
    const asset = assets.files.get(ctx.params.file as string);
    if (!asset) throw notFound('Widget file');
    ctx.set('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=86400');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('Access-Control-Allow-Origin', '*');
    sendAsset(ctx, asset, asset.name.endsWith('.json') ? 'application/json; charset=utf-8' : 'application/javascript; charset=utf-8');
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
      ctx.body = page.html;
    });
  }
}
