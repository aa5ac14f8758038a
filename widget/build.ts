/**
 * Builds the widget: the loader (stable name, the URL site owners paste), one
 * ES module chunk per kind of layout (the badge; the framed carousel, grid
 * and list) and the chunks they share (esbuild code splitting: the
 * common code lands once, in a shared chunk), all content-hashed and
 * cached forever, one JSON catalog per language, each file with gzip and
 * brotli siblings, and manifest.json naming them. The layouts' chunk names
 * are compiled into the loader, so the server serves dist/ as it is.
 *
 * The budgets are per page: what a page with a badge, with one other layout,
 * or with all four loads, i.e. the loader, the layouts' chunks and every chunk
 * they import (followed through esbuild's metafile, not listed by hand), and
 * the largest language catalog.
 *
 *   npx tsx widget/build.ts [--quiet]   prints sizes (with --quiet only when over budget), exits 1 when a budget is exceeded
 */
import { build, transformSync, type Metafile, type Plugin, type PluginBuild } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WIDGET_LAYOUTS, type WidgetLayout } from '../api/store/types.ts';
import { CSS_PARTS } from './src/styles.ts';
import { CATALOGS } from './src/i18n/catalogs.ts';
import { EN } from './src/messages.ts';
import { pageBudgets, writeWithSiblings, type Budget, type FileSize } from './build-output.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT_DIR = join(HERE, 'dist');

/** Gzip budgets in bytes: the loader, one language's catalog (issue 12). */
export const LOADER_BUDGET = 1536;
export const CATALOG_BUDGET = 512;
/** The replies' chunk (its code, its rules, "Response from" in every language), which only a page with a reply loads. */
export const REPLY_BUDGET = 1280;
/**
 * A page's whole widget JavaScript (loader, chunks, the largest catalog) by
 * the layouts it shows: issue 12's budgets (defect 7).
 */
export const PAGE_BUDGETS: { name: string; layouts: WidgetLayout[]; limit: number }[] = [
  // Issue 12's figures, kept with replies (issue 37) and product widgets (issue 35): the replies' code
  // and words are a chunk of their own (REPLY_BUDGET), loaded only for data with a reply (docs/widget.md).
  { name: 'badge page', layouts: ['badge'], limit: 6 * 1024 },
  { name: 'carousel page', layouts: ['carousel'], limit: 11 * 1024 },
  { name: 'grid page', layouts: ['grid'], limit: 11 * 1024 },
  { name: 'list page', layouts: ['list'], limit: 11 * 1024 },
  { name: 'four-layout page', layouts: [...WIDGET_LAYOUTS], limit: 14 * 1024 },
];

/**
 * The chunk (entry point under src/entries/) that draws each layout: the badge
 * alone (the smallest), the framed layouts together (they share nearly all
 * their code, so separate chunks would cost a page more than they save).
 */
const ENTRY_OF: Record<WidgetLayout, string> = { badge: 'badge', carousel: 'framed', grid: 'framed', list: 'framed' };

/** Browsers the output must run in (evergreen, two years back; all have ES modules and import()). */
const TARGET = ['chrome100', 'firefox100', 'safari15.4', 'edge100'];

/** Every hashed script this build may have written before (removed when no longer current). */
const HASHED_JS = /^widget-[A-Za-z0-9-]+\.js(\.gz|\.br)?$/;

export type { Budget, FileSize };

export interface WidgetManifest {
  loader: string;
  /** The chunk the loader imports for each layout. */
  layouts: Record<WidgetLayout, string>;
  /** Every file a layout's chunk needs: itself and the chunks it imports, transitively. */
  needs: Record<WidgetLayout, string[]>;
  /** The chunks every layout needs: the loader starts them with the first widget's data. */
  core: string[];
  /** The replies' chunk, which the framed chunk imports only for data with a reply to show. */
  reply: string;
  /** Every hashed script (the layouts' chunks, the chunks they share and the replies' chunk). */
  chunks: string[];
  /** Catalog file by language (ISO 639-1). */
  catalogs: Record<string, string>;
  /** Bytes per file; `gzip` is what the budgets are checked against. */
  sizes: Record<string, FileSize>;
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

/** esbuild's options shared by the chunks and the loader. */
const common = {
  bundle: true,
  write: false,
  platform: 'browser',
  target: TARGET,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'silent',
  define: { 'process.env.NODE_ENV': '"production"' },
} as const;

/**
 * The replies' chunk (src/reply.ts): built on its own, before the layouts'
 * chunks, because it must import nothing. In the layouts' build esbuild would
 * import the JSX helpers (`inject`, which every entry gets) into it, and so
 * split them out of the shared chunk into one more file for every framed page.
 */
async function buildReplyChunk(outDir: string, minify: boolean) {
  const css = JSON.stringify(transformSync(CSS_PARTS.reply, { loader: 'css', minify, target: TARGET }).code);
  const out = await build({ ...common, minify, define: { ...common.define, __RV_CSS_REPLY__: css }, entryPoints: { reply: join(HERE, 'src', 'reply.ts') }, format: 'esm', outdir: outDir, entryNames: 'widget-[name]-[hash]' });
  const file = out.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!file) throw new Error('esbuild produced no reply chunk');
  return file;
}

/**
 * esbuild's options for the layouts' chunks (also used by widget/weigh.ts).
 * `replyChunk` is the file name of the replies' chunk: the framed chunk's
 * `import('../reply.ts')` becomes an import of that file, by a relative URL.
 */
export function chunkBuildOptions(outDir: string, minify = true, replyChunk = 'widget-reply.js') {
  // Minified for the browsers of TARGET (the server inlines the same rules as written: cssOf()).
  const css = Object.fromEntries(
    Object.entries(CSS_PARTS).map(([part, text]) => [`__RV_CSS_${part.toUpperCase()}__`, JSON.stringify(transformSync(text, { loader: 'css', minify, target: TARGET }).code)]),
  );
  return {
    ...common,
    minify,
    entryPoints: Object.fromEntries([...new Set(Object.values(ENTRY_OF))].map((entry) => [entry, join(HERE, 'src', 'entries', `${entry}.tsx`)])),
    format: 'esm',
    splitting: true,
    metafile: true,
    outdir: outDir,
    entryNames: 'widget-[name]-[hash]',
    chunkNames: 'widget-shared-[hash]',
    jsx: 'transform',
    jsxFactory: 'h',
    jsxFragment: 'Fragment',
    // The project tsconfig asks for the automatic runtime (right for type-checking);
    // without this esbuild would follow it.
    tsconfigRaw: { compilerOptions: { jsx: 'react', jsxFactory: 'h', jsxFragmentFactory: 'Fragment', verbatimModuleSyntax: true } },
    inject: [join(HERE, 'src', 'jsx-inject.ts')] as string[],
    // The components extend Preact's Component (the server renders them with Preact); in the
    // browser dom-patch.ts draws them: 1.1 KB gzip instead of Preact's 4.4 KiB.
    alias: { preact: join(HERE, 'src', 'dom-patch.ts') },
    // The chunks only ever run in a browser: server-only branches (review-card.tsx's guess) fold away.
    define: { ...common.define, ...css, __RV_BROWSER__: 'true' },
    plugins: [
      {
        name: 'reply-chunk',
        setup(b: PluginBuild) {
          b.onResolve({ filter: /\/reply\.ts$/ }, (args) => (args.kind === 'dynamic-import' ? { path: `./${replyChunk}`, external: true } : undefined));
        },
      },
    ] as Plugin[],
  } as const;
}

/**
 * A catalog as the browser gets it: a plural form that says the same as `other` is left out,
 * since the widget falls back to `other` (format.ts reviewCount), e.g. Ukrainian's four
 * identical "hidden by the owner" forms.
 */
function withoutRepeatedForms(messages: object): object {
  return Object.fromEntries(
    Object.entries(messages).map(([key, value]: [string, unknown]) => {
      if (typeof value !== 'object' || value === null || !('other' in value)) return [key, value];
      const forms = value as Record<string, string>;
      return [key, Object.fromEntries(Object.entries(forms).filter(([form, text]) => form === 'other' || text !== forms.other))];
    }),
  );
}

function table(manifest: WidgetManifest, budgets: Budget[]): string[] {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [`${'file'.padEnd(34)}${pad('raw', 9)}${pad('gzip', 9)}${pad('brotli', 9)}`];
  for (const [name, s] of Object.entries(manifest.sizes)) {
    lines.push(`${name.padEnd(34)}${pad(s.raw, 9)}${pad(s.gzip, 9)}${pad(s.brotli, 9)}`);
  }
  for (const b of budgets) {
    lines.push(`${b.ok ? 'ok  ' : 'OVER'} ${b.name}: ${b.actual} B gzip of ${b.limit} B${b.files ? ` (${b.files.join(' + ')})` : ''}`);
  }
  return lines;
}

/**
 * The files a chunk needs: itself and, transitively, every chunk it imports
 * statically (esbuild's metafile, keyed by output path).
 */
export function chunkClosure(metafile: Metafile, output: string): string[] {
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(output);
  return [...seen].map((path) => basename(path));
}

export async function buildWidget(options: BuildOptions = {}): Promise<BuildResult> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const minify = options.minify ?? true;
  mkdirSync(outDir, { recursive: true });

  const replyFile = await buildReplyChunk(outDir, minify);
  const reply = basename(replyFile.path);
  const chunksOut = await build(chunkBuildOptions(outDir, minify, reply));
  const metafile = chunksOut.metafile;
  const chunkFiles = [...chunksOut.outputFiles.filter((f) => f.path.endsWith('.js')), replyFile];
  if (chunkFiles.length < 2) throw new Error('esbuild produced no widget chunks');
  // Output paths in the metafile are relative to the working directory; match them by file name.
  const outputOf = (entry: string): string => {
    const found = Object.entries(metafile.outputs).find(([, out]) => out.entryPoint?.endsWith(`/entries/${entry}.tsx`));
    if (!found) throw new Error(`esbuild produced no chunk for entries/${entry}`);
    return found[0];
  };
  const layouts = Object.fromEntries(WIDGET_LAYOUTS.map((layout) => [layout, basename(outputOf(ENTRY_OF[layout]))])) as Record<WidgetLayout, string>;
  const needs = Object.fromEntries(WIDGET_LAYOUTS.map((layout) => [layout, chunkClosure(metafile, outputOf(ENTRY_OF[layout]))])) as Record<WidgetLayout, string[]>;
  const core = needs.badge.filter((name) => Object.values(needs).every((files) => files.includes(name)) && !Object.values(layouts).includes(name));

  // One JSON file per language, English included, each saying its language (formatter() reads it),
  // all named with one hash of every catalog, so a change renames them all.
  const languages = { en: EN, ...CATALOGS };
  const catalogJson = Object.fromEntries(Object.entries(languages).map(([lang, messages]) => [lang, JSON.stringify({ ...withoutRepeatedForms(messages), lang })]));
  const catalogHash = createHash('sha256').update(JSON.stringify(catalogJson)).digest('hex').slice(0, 8).toUpperCase();
  const catalogPattern = `i18n-${catalogHash}-*.json`;
  const loaderOut = await build({
    ...common,
    minify,
    format: 'iife',
    entryPoints: [join(HERE, 'src', 'loader.ts')],
    outfile: join(outDir, 'loader.js'),
    define: {
      ...common.define,
      __RV_BADGE__: JSON.stringify(layouts.badge),
      __RV_FRAMED__: JSON.stringify(layouts.carousel),
      __RV_CORE__: JSON.stringify(core),
      __RV_CATALOG__: JSON.stringify(catalogPattern),
      __RV_LANGS__: JSON.stringify(Object.keys(languages).join(' ')),
    },
  });
  const loaderFile = loaderOut.outputFiles[0];
  if (!loaderFile) throw new Error('esbuild produced no loader');

  const sizes: Record<string, FileSize> = { 'loader.js': writeWithSiblings(outDir, 'loader.js', loaderFile.contents) };
  const chunks = chunkFiles.map((file) => basename(file.path));
  for (const file of chunkFiles) sizes[basename(file.path)] = writeWithSiblings(outDir, basename(file.path), file.contents);
  // Old hashed files go: the server only ever serves the manifest's.
  for (const name of readdirSync(outDir)) {
    if (HASHED_JS.test(name) && !chunks.includes(name.replace(/\.(gz|br)$/, ''))) rmSync(join(outDir, name));
    if (/^i18n-[A-Za-z0-9]+-/.test(name) && !name.startsWith(`i18n-${catalogHash}-`)) rmSync(join(outDir, name));
  }
  const catalogs: Record<string, string> = {};
  for (const [lang, json] of Object.entries(catalogJson)) {
    const name = catalogPattern.replace('*', lang);
    catalogs[lang] = name;
    sizes[name] = writeWithSiblings(outDir, name, Buffer.from(json));
  }
  const manifest: WidgetManifest = { loader: 'loader.js', layouts, needs, core, reply, chunks, catalogs, sizes };
  // Written last: a reader that sees the manifest finds every file it names.
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

  const loaderGzip = sizes['loader.js']!.gzip;
  const largest = Object.values(catalogs).reduce((a, b) => (sizes[b]!.gzip > sizes[a]!.gzip ? b : a));
  const budgets: Budget[] = [
    { name: 'loader', limit: LOADER_BUDGET, actual: loaderGzip, ok: loaderGzip <= LOADER_BUDGET },
    { name: 'largest catalog', limit: CATALOG_BUDGET, actual: sizes[largest]!.gzip, ok: sizes[largest]!.gzip <= CATALOG_BUDGET },
    { name: 'replies chunk', limit: REPLY_BUDGET, actual: sizes[reply]!.gzip, ok: sizes[reply]!.gzip <= REPLY_BUDGET },
    ...pageBudgets(
      PAGE_BUDGETS.map(({ name, layouts: shown, limit }) => ({
        name,
        limit,
        files: ['loader.js', ...new Set(shown.flatMap((layout) => needs[layout])), largest],
      })),
      sizes,
    ),
  ];
  for (const line of table(manifest, budgets)) options.log?.(line);
  return { outDir, manifest, budgets, ok: budgets.every((b) => b.ok) };
}

/**
 * Both front ends, as the command line builds them: each size table goes to
 * `print` unless `quiet` (npm start), where only a table with a budget
 * exceeded is printed. False when any budget is exceeded.
 */
export async function buildFrontEnds(options: { quiet: boolean; print: (line: string) => void; widgetOut?: string; dashboardOut?: string }): Promise<boolean> {
  const report = (lines: string[], ok: boolean, what: string): boolean => {
    if (!options.quiet || !ok) for (const line of lines) options.print(line);
    if (!ok) options.print(`${what} build: size budget exceeded`);
    return ok;
  };
  const widgetLines: string[] = [];
  const widget = await buildWidget({ outDir: options.widgetOut, log: (line) => widgetLines.push(line) });
  // The second front end, same toolchain: the dashboard (dashboard/build.ts), with its own budget.
  const { buildDashboard } = await import('../dashboard/build.ts');
  const dashboardLines: string[] = [];
  const dashboard = await buildDashboard({ outDir: options.dashboardOut, log: (line) => dashboardLines.push(line) });
  return [report(widgetLines, widget.ok, 'widget'), report(dashboardLines, dashboard.ok, 'dashboard')].every(Boolean);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!(await buildFrontEnds({ quiet: process.argv.includes('--quiet'), print: (line) => console.log(line) }))) process.exitCode = 1;
}
