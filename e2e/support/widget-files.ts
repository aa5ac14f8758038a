/**
 * Which widget files a page should fetch, from the manifest the build wrote
 * (widget/build.ts: each layout's chunk and every chunk it imports, and the
 * language catalogs), and which it did, from the widget origin's request log.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WidgetManifest } from '../../widget/build.ts';

const MANIFEST = fileURLToPath(new URL('../../widget/dist/manifest.json', import.meta.url));

export function widgetManifest(): WidgetManifest {
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as WidgetManifest;
}

/** The loader, the chunks the layouts need and the catalog of `lang`, sorted. */
export function expectedFiles(layouts: string[], lang: string): string[] {
  const manifest = widgetManifest();
  const chunks = layouts.flatMap((layout) => manifest.needs[layout as keyof WidgetManifest['needs']]);
  return [...new Set(['loader.js', ...chunks, manifest.catalogs[lang]!])].sort();
}

/** The widget's static files among served paths (/widget/…), by name, in request order (repeats kept). */
export function widgetFilesServed(served: string[]): string[] {
  return served.filter((path) => path.startsWith('/widget/')).map((path) => path.slice('/widget/'.length));
}

/** The hashed scripts among served paths (/widget/widget-….js), repeats kept. */
export function chunksServed(served: string[]): string[] {
  return served.filter((path) => /^\/widget\/widget-[\w-]+\.js$/.test(path));
}
