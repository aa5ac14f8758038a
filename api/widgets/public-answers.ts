/**
 * What a site visitor's requests are answered with, in one place for both
 * ways they are served: the Koa routes (routes.ts) and the lean path in front
 * of Koa (api/public-path.ts). The public widget data is kept here for a few
 * seconds per widget version, as bytes with their ETag; the widget's static
 * files come precompressed from assets.ts.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { pickForm, precompress, type Precompressed } from '../middleware/compression.ts';
import type { Store, Widget } from '../store/types.ts';
import type { Asset } from './assets.ts';
import { publicWidgetData, widgetProduct } from './public-data.ts';

/** Browsers may reuse public data for a minute, and once more while revalidating within the next: a hidden review (moderation) is gone from every cache within two minutes. */
export const PUBLIC_CACHE = 'public, max-age=60, stale-while-revalidate=60';

/** The public endpoints' CORS fields: any site may embed a widget. */
export const PUBLIC_CORS: readonly [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS'],
  ['Access-Control-Max-Age', '86400'],
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
];

/**
 * The public endpoint needs no key, so its answer is also kept here for a few
 * seconds per widget version: many visitors cost one statistics query, not one
 * each (with MongoDB that is an aggregation). New reviews show within that time.
 */
export const PUBLIC_TTL_MS = 5000;
const PUBLIC_CACHE_MAX = 10_000;

export interface CachedPublic {
  version: string;
  body: string;
  /** The body's UTF-8 bytes, encoded once: every visitor's answer writes them as they are. */
  bytes: Buffer;
  etag: string;
  /** Brotli and gzip forms of `bytes`, made once per body (null below MIN_COMPRESS_BYTES). */
  forms: Precompressed | null;
  expires: number;
}

/**
 * The compressed forms of a body: the previous entry's when the body is the
 * same (an entry is recomputed every PUBLIC_TTL_MS, its body seldom changes),
 * else made now.
 */
export async function formsOf(bytes: Buffer, etag: string, previous: CachedPublic | undefined): Promise<Precompressed | null> {
  return previous && previous.etag === etag ? previous.forms : precompress(bytes);
}

/** A strong ETag of a body: 27 characters of its SHA-256. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * What a widget's public answer depends on, as one string. The embedded store
 * hands out the same frozen widget object until the widget changes, so the
 * string is built once per version rather than on every visitor's request.
 */
const versions = new WeakMap<Widget, string>();

export function widgetVersion(widget: Widget): string {
  let version = versions.get(widget);
  if (version === undefined) {
    version = `${widget.updatedAt}|${widget.layout}|${JSON.stringify(widget.options)}|${JSON.stringify(widget.subject)}`;
    if (Object.isFrozen(widget)) versions.set(widget, version);
  }
  return version;
}

/** Whether If-None-Match names `etag`: one tag, or a comma-separated list of them. */
export function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch === etag || (ifNoneMatch.includes(',') && ifNoneMatch.split(/\s*,\s*/).includes(etag));
}

/** The public data of each widget, per version, for PUBLIC_TTL_MS. */
export class PublicWidgetCache {
  private readonly entries = new Map<string, CachedPublic>();
  /** Computations under way, by widget id and version: concurrent misses share one (single-flight). */
  private readonly computing = new Map<string, Promise<CachedPublic>>();

  constructor(private readonly store: Store) {}

  /**
   * The cached answer when it is fresh, without waiting (the fast path's common case).
   * `productId`: the page's product of a product widget (CONTRACT §13), cached apart per product.
   */
  fresh(widget: Widget, productId?: string): CachedPublic | null {
    const hit = this.entries.get(productId === undefined ? widget.id : `${widget.id} ${productId}`);
    return hit && hit.expires > Date.now() && hit.version === widgetVersion(widget) ? hit : null;
  }

  /** Rejects like widgetProduct (400, 404 `product_not_found`) when `productId` does not fit the widget. */
  get(widget: Widget, productId?: string): Promise<CachedPublic> {
    const hit = this.fresh(widget, productId);
    if (hit) return Promise.resolve(hit);
    const version = widgetVersion(widget);
    const key = productId === undefined ? widget.id : `${widget.id} ${productId}`;
    const flight = `${key}|${version}`;
    let pending = this.computing.get(flight);
    if (!pending) {
      pending = (async () => {
        const product = await widgetProduct(this.store, widget, productId);
        const body = JSON.stringify({ data: await publicWidgetData(this.store, widget, new Date(), product) });
        const bytes = Buffer.from(body, 'utf8');
        const etag = etagOf(body);
        const forms = await formsOf(bytes, etag, this.entries.get(key));
        const entry: CachedPublic = { version, body, bytes, etag, forms, expires: Date.now() + PUBLIC_TTL_MS };
        if (this.entries.size >= PUBLIC_CACHE_MAX) this.entries.clear();
        this.entries.set(key, entry);
        return entry;
      })().finally(() => this.computing.delete(flight));
      this.computing.set(flight, pending);
    }
    return pending;
  }
}

/** A cached answer through Koa, in the form the client accepts (brotli, gzip or as it is). */
export function sendForm(ctx: Context, cached: CachedPublic, type: string): void {
  const { encoding, bytes } = pickForm(cached.bytes, cached.forms, ctx.get('accept-encoding'));
  ctx.type = type;
  if (encoding) ctx.set('Content-Encoding', encoding);
  ctx.body = bytes;
}

/** A widget file's caching: the loader keeps its URL and a short cache, hashed files are immutable. */
export function assetCacheControl(asset: Asset): string {
  return asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=86400';
}

export function assetType(asset: Asset): string {
  return asset.name.endsWith('.json') ? 'application/json; charset=utf-8' : 'application/javascript; charset=utf-8';
}

/** The precompressed form the client accepts (its weights honoured, `q=0` refuses): brotli, gzip, or the raw bytes. */
export function assetEncoding(asset: Asset, acceptEncoding: string | undefined): { encoding: 'br' | 'gzip' | null; bytes: Buffer } {
  return pickForm(asset.raw, { br: asset.brotli, gzip: asset.gzip }, acceptEncoding);
}
