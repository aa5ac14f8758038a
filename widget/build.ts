/**
 * Builds the widget: the loader (stable name, the URL site owners paste) and
 * the Preact bundle (content-hashed name, cached forever), each with gzip and
 * brotli siblings, and manifest.json naming both. The bundle's file name is
 * compiled into the loader, so the server serves dist/ as it is.
 *
 *   npx tsx widget/build.ts       prints sizes, exits 1 when a budget is exceeded
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CSS } from './src/styles.ts';
import { CATALOGS } from './src/i18n/catalogs.ts';
import { writeWithSiblings, type FileSize } from './build-output.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT_DIR = join(HERE, 'dist');

/**
 * Gzip budgets in bytes (widget issue §9; languages and RTL added 0.7 KiB in issue 12;
 * "N hidden by the owner" (moderation with disclosure, and a two-line summary in narrow widgets so it is never cut) added 112 B and 72 B in issue 15).
 */
export const LOADER_BUDGET = 1536;
/** +112 B (issue 15r: the summary line) and +35 B (issue 15w: ReviewProof.render for the dashboard preview, a region renamed with its subject). */
export const TOTAL_BUDGET = 13 * 1024 + 112 + 35;
/** One language's catalog, and a page's whole JavaScript with the largest catalog. */
export const CATALOG_BUDGET = 512;
/** +72 B (issue 15r) and +39 B (issue 15w), as above. */
export const PAGE_BUDGET = 13.5 * 1024 + 72 + 39;

/** Browsers the output must run in (evergreen, two years back). */
const TARGET = ['chrome100', 'firefox100', 'safari15.4', 'edge100'];


export type { FileSize };

export interface WidgetManifest {
  loader: string;
  bundle: string;
  /** Catalog file by language (ISO 639-1). */
  catalogs: Record<string, string>;
  /** Bytes per file; `gzip` is what the budgets are checked against. */
  sizes: Record<string, FileSize>;
}

export interface Budget {
  name: string;
  limit: number;
  actual: number;
  ok: boolean;
}

export interface BuildResult {
  outDir: string;
  manifest: WidgetManifest;
  budgets: Budget[];
  /** False when any budget is exceeded. */
  ok: boolean;
}

export interface BuildOptions {
  outDir?: string;
  minify?: boolean;
  /** Receives the size table; silent by default (the server builds quietly). */
  log?: (line: string) => void;
}

function table(manifest: WidgetManifest, budgets: Budget[]): string[] {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [`${'file'.padEnd(28)}${pad('raw', 9)}${pad('gzip', 9)}${pad('brotli', 9)}`];
  for (const [name, s] of Object.entries(manifest.sizes)) {
    lines.push(`${name.padEnd(28)}${pad(s.raw, 9)}${pad(s.gzip, 9)}${pad(s.brotli, 9)}`);
  }
  for (const b of budgets) {
    lines.push(`${b.ok ? 'ok  ' : 'OVER'} ${b.name}: ${b.actual} B gzip of ${b.limit} B`);
  }
  return lines;
}

export async function buildWidget(options: BuildOptions = {}): Promise<BuildResult> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const minify = options.minify ?? true;
  mkdirSync(outDir, { recursive: true });

  const common = {
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    minify,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  } as const;

  const bundleOut = await build({
    ...common,
    entryPoints: [join(HERE, 'src', 'bundle.tsx')],
    outdir: outDir,
    entryNames: 'widget-[hash]',
    jsx: 'transform',
    jsxFactory: 'h',
    jsxFragment: 'Fragment',
    // The project tsconfig asks for the automatic runtime (right for type-checking);
    // without this esbuild would follow it.
    tsconfigRaw: { compilerOptions: { jsx: 'react', jsxFactory: 'h', jsxFragmentFactory: 'Fragment', verbatimModuleSyntax: true } },
    inject: [join(HERE, 'src', 'jsx-inject.ts')],
    define: { ...common.define, __RV_CSS__: JSON.stringify(CSS) },
  });
  const bundleFile = bundleOut.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!bundleFile) throw new Error('esbuild produced no widget bundle');
  const bundleName = bundleFile.path.slice(bundleFile.path.lastIndexOf('/') + 1);

  // One JSON file per language, all named with one hash of every catalog, so a change renames them all.
  const catalogJson = Object.fromEntries(Object.entries(CATALOGS).map(([lang, messages]) => [lang, JSON.stringify(messages)]));
  const catalogHash = createHash('sha256').update(JSON.stringify(catalogJson)).digest('hex').slice(0, 8).toUpperCase();
  const catalogPattern = `i18n-${catalogHash}-*.json`;
  const loaderOut = await build({
    ...common,
    entryPoints: [join(HERE, 'src', 'loader.ts')],
    outfile: join(outDir, 'loader.js'),
    define: {
      ...common.define,
      __RV_BUNDLE__: JSON.stringify(bundleName),
      __RV_CATALOG__: JSON.stringify(catalogPattern),
      __RV_LANGS__: JSON.stringify(Object.keys(CATALOGS).join(' ')),
    },
  });
  const loaderFile = loaderOut.outputFiles[0];
  if (!loaderFile) throw new Error('esbuild produced no loader');

  const sizes: Record<string, FileSize> = {
    'loader.js': writeWithSiblings(outDir, 'loader.js', loaderFile.contents),
    [bundleName]: writeWithSiblings(outDir, bundleName, bundleFile.contents),
  };
  // Old hashed files go: the server only ever serves the manifest's.
  for (const name of readdirSync(outDir)) {
    if (/^widget-[A-Za-z0-9]+\.js(\.gz|\.br)?$/.test(name) && !name.startsWith(bundleName)) rmSync(join(outDir, name));
    if (/^i18n-[A-Za-z0-9]+-/.test(name) && !name.startsWith(`i18n-${catalogHash}-`)) rmSync(join(outDir, name));
  }
  const catalogs: Record<string, string> = {};
  for (const [lang, json] of Object.entries(catalogJson)) {
    const name = catalogPattern.replace('*', lang);
    catalogs[lang] = name;
    sizes[name] = writeWithSiblings(outDir, name, Buffer.from(json));
  }
  const manifest: WidgetManifest = { loader: 'loader.js', bundle: bundleName, catalogs, sizes };
  // Written last: a reader that sees the manifest finds every file it names.
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

  const loaderGzip = sizes['loader.js']!.gzip;
  const totalGzip = loaderGzip + sizes[bundleName]!.gzip;
  const budgets: Budget[] = [
    { name: 'loader', limit: LOADER_BUDGET, actual: loaderGzip, ok: loaderGzip <= LOADER_BUDGET },
    { name: 'loader + bundle', limit: TOTAL_BUDGET, actual: totalGzip, ok: totalGzip <= TOTAL_BUDGET },
  ];
  const largest = Math.max(...Object.values(catalogs).map((name) => sizes[name]!.gzip));
  budgets.push(
    { name: 'largest catalog', limit: CATALOG_BUDGET, actual: largest, ok: largest <= CATALOG_BUDGET },
    { name: 'loader + bundle + catalog', limit: PAGE_BUDGET, actual: totalGzip + largest, ok: totalGzip + largest <= PAGE_BUDGET },
  );
  for (const line of table(manifest, budgets)) options.log?.(line);
  return { outDir, manifest, budgets, ok: budgets.every((b) => b.ok) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await buildWidget({ log: (line) => console.log(line) });
  if (!result.ok) {
    console.error('widget build: size budget exceeded');
    process.exitCode = 1;
  }
  // The second front end, same toolchain: the dashboard (dashboard/build.ts), with its own budget.
  const { buildDashboard } = await import('../dashboard/build.ts');
  const dashboard = await buildDashboard({ log: (line) => console.log(line) });
  if (!dashboard.ok) {
    console.error('dashboard build: size budget exceeded');
    process.exitCode = 1;
  }
}
