/**
 * The widget's static files (built by widget/build.ts into widget/dist), held
 * in memory with their precompressed gzip and brotli forms. The layouts'
 * chunks and the chunks they share (ES modules) have a content hash in their
 * names and are cached for a year, immutable; the loader keeps a stable URL
 * (it is what site owners paste) and a short cache. The language catalogs
 * (JSON) are hashed and immutable like the chunks. Only the files the
 * manifest names are served: any other name is a 404.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { assetEncoding } from './public-answers.ts';

export const WIDGET_DIST = join(import.meta.dirname, '..', '..', 'widget', 'dist');

export interface Asset {
  name: string;
  raw: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
  immutable: boolean;
}

/**
 * Answers a precompressed static file: ETag and Vary, 304 for a matching
 * If-None-Match, else brotli, gzip or the raw bytes as the client accepts.
 * The caller sets caching and cross-origin headers first (they differ per file).
 */
export function sendAsset(ctx: Context, asset: Asset, type: string): void {
  ctx.set('ETag', asset.etag);
  ctx.set('Vary', 'Accept-Encoding');
  if (ctx.get('if-none-match') === asset.etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  const { encoding, bytes } = assetEncoding(asset, ctx.get('accept-encoding'));
  if (encoding) ctx.set('Content-Encoding', encoding);
  ctx.body = bytes;
}

export interface WidgetAssets {
  loaderName: string;
  /** The chunk the loader imports for each layout. */
  layouts: Record<string, string>;
  files: Map<string, Asset>;
}

interface Manifest {
  loader: string;
  layouts?: Record<string, string>;
  /** Every hashed script; absent in a dist/ built before the split per layout. */
  chunks?: string[];
  /** Language catalogs (JSON), hashed names. */
  catalogs?: Record<string, string>;
}

export async function loadWidgetAssets(dist = WIDGET_DIST): Promise<WidgetAssets> {
  const manifestPath = join(dist, 'manifest.json');
  if (!existsSync(manifestPath) || !(JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest).chunks) {
    // A fresh checkout that skipped `npm run build:widget`, or a dist/ from before the split: build now.
    const { buildWidget } = await import('../../widget/build.ts');
    await buildWidget({ outDir: dist, minify: true });
  }
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  const files = new Map<string, Asset>();
  const entries: [string, boolean][] = [
    [manifest.loader, false],
    ...(manifest.chunks ?? []).map((name): [string, boolean] => [name, true]),
    ...Object.values(manifest.catalogs ?? {}).map((name): [string, boolean] => [name, true]),
  ];
  for (const [name, immutable] of entries) {
    const [raw, gzip, brotli] = await Promise.all(['', '.gz', '.br'].map((ext) => readFile(join(dist, name + ext))));
    files.set(name, { name, raw: raw!, gzip: gzip!, brotli: brotli!, etag: `"${createHash('sha256').update(raw!).digest('base64url').slice(0, 22)}"`, immutable });
  }
  return { loaderName: manifest.loader, layouts: manifest.layouts ?? {}, files };
}
