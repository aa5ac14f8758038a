/**
 * Builds the dashboard with the widget's toolchain (esbuild, the same
 * compression and size table): one entry script and one stylesheet, both with
 * a content hash in their names (cached for a year), gzip and brotli siblings,
 * and manifest.json naming them. Run by `widget/build.ts` after the widget.
 *
 * Code splitting: what a page loads by dynamic `import()` (the Overview's
 * charting library, uPlot) lands in `dashboard-chunk-<hash>.js` files that no
 * other page downloads (also the widget builder's own code). The budgets are per
 * page: every page's script and stylesheet with their static imports, and each
 * page that loads more by import() with that chunk (LAZY_PAGES).
 *
 * The dashboard shares no runtime code with the widget: the widget must stay tiny.
 */
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeWithSiblings, type FileSize } from '../widget/build-output.ts';

export interface Budget {
  name: string;
  limit: number;
  actual: number;
  ok: boolean;
}

const HERE = dirname(fileURLToPath(import.meta.url));
export const DASHBOARD_DIST = join(HERE, 'dist');

/** Gzip budget for script + stylesheet: a dashboard that opens at once on a phone. */
export const DASHBOARD_BUDGET = 30 * 1024;
/**
 * Gzip budget for the Overview page: the above plus its lazily loaded charts (uPlot ~22 KB).
 * 49 KiB since the sources that need a person are shown in every page's navigation and on the Overview (issue 39; it was 48);
 * 50 KiB since the reply composer's and the Collect page's rules joined the one stylesheet every page loads (issues 35, 37):
 * the Overview's own code did not grow, the shared stylesheet did (6.8 KB gzip);
 * 51 KiB since the Collect page's invitations (issue 36) added ~1 KB gzip to that stylesheet.
 */
export const OVERVIEW_BUDGET = 51 * 1024;
/** Gzip budget for the widget builder: every page's files plus the builder's own chunk. */
export const BUILDER_BUDGET = 40 * 1024;
/** Gzip budget for the Reviews page: every page's files plus its own chunk (filters, import, moderation, the review dialog). */
export const REVIEWS_BUDGET = 36 * 1024;
/**
 * Gzip budget for the Sources page: every page's files plus its own chunk (the list, connect, Google, dialogs).
 * 33 KiB since Trustpilot's reply credentials and what a source lacks to reply (issue 37), on top of the grown shared stylesheet;
 * 34 KiB since the invitations' rules joined that stylesheet (issue 36, ~1 KB gzip).
 */
export const SOURCES_BUDGET = 34 * 1024;
/** Gzip budget for the Webhooks page: every page's files plus its own chunk (the list, add, the delivery log, dialogs). */
export const WEBHOOKS_BUDGET = 33 * 1024;
/** Gzip budget for the Audit log: every page's files plus its own chunk (the words for every action and subject). */
export const AUDIT_BUDGET = 32 * 1024;
/**
 * Gzip budget for Products: every page's files plus its own chunk (the list, the product form with the API's validator, the shared import panel);
 * 35 KiB since the import panel also serves the invitations' upload and the invitations' rules joined the shared stylesheet (issue 36).
 */
export const PRODUCTS_BUDGET = 35 * 1024;
/**
 * Gzip budget for Collect: every page's files plus its own chunk (the link and QR code, settings, product links, pending
 * reviews and the reject dialog; then the invitations (issue 36): their CSV upload with the shared import panel (the
 * Products page's, ~2.6 KB) and the columns' help (~0.9 KB), the list, conversion, settings and the mail's preview, ~3 KB).
 */
export const COLLECT_BUDGET = 40 * 1024;
/** Gzip budget for API Keys: every page's files plus its own chunk (the list, create with the key shown once, revoke). */
export const API_KEYS_BUDGET = 32 * 1024;

/**
 * The pages that load code by import(): the module imported (relative to
 * dashboard/), the page's name in the build's table, and its budget. A dynamic
 * import not listed here fails the build (each must have a budget).
 */
const LAZY_PAGES: Record<string, { name: string; limit: number }> = {
  'pages/overview/draw-chart.ts': { name: 'dashboard, Overview page (+ charts)', limit: OVERVIEW_BUDGET },
  'pages/widgets/builder.tsx': { name: 'dashboard, widget builder page (+ builder)', limit: BUILDER_BUDGET },
  'pages/reviews/reviews.tsx': { name: 'dashboard, Reviews page (+ reviews)', limit: REVIEWS_BUDGET },
  'pages/sources/sources.tsx': { name: 'dashboard, Sources page (+ sources)', limit: SOURCES_BUDGET },
  'pages/products/products.tsx': { name: 'dashboard, Products page (+ products)', limit: PRODUCTS_BUDGET },
  'pages/collect/collect.tsx': { name: 'dashboard, Collect page (+ collect)', limit: COLLECT_BUDGET },
  'pages/webhooks/webhooks.tsx': { name: 'dashboard, Webhooks page (+ webhooks)', limit: WEBHOOKS_BUDGET },
  'pages/api-keys/api-keys.tsx': { name: 'dashboard, API Keys page (+ keys)', limit: API_KEYS_BUDGET },
  'pages/audit/audit.tsx': { name: 'dashboard, Audit log page (+ audit)', limit: AUDIT_BUDGET },
};

export interface DashboardManifest {
  script: string;
  stylesheet: string;
  /** Scripts loaded by import() (and their shared pieces): served like the script, fetched only by the pages that ask. */
  chunks: string[];
  sizes: Record<string, FileSize>;
}

export async function buildDashboard(
  options: { outDir?: string; log?: (line: string) => void } = {},
): Promise<{ manifest: DashboardManifest; budget: Budget; budgets: Budget[]; ok: boolean }> {
  const outDir = options.outDir ?? DASHBOARD_DIST;
  mkdirSync(outDir, { recursive: true });
  const out = await build({
    entryPoints: { dashboard: join(HERE, 'main.tsx') },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15.4', 'edge100'],
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    outdir: outDir,
    entryNames: '[name]-[hash]',
    splitting: true,
    chunkNames: 'dashboard-chunk-[hash]',
    metafile: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const scripts = out.outputFiles.filter((f) => f.path.endsWith('.js'));
  const script = scripts.find((f) => /^dashboard-[A-Za-z0-9]+\.js$/.test(base(f.path)));
  const stylesheet = out.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!script || !stylesheet) throw new Error('esbuild produced no dashboard script or stylesheet');
  const chunks = scripts.filter((f) => f !== script);
  const names = [base(script.path), base(stylesheet.path), ...chunks.map((f) => base(f.path))];
  for (const name of readdirSync(outDir)) {
    if (/^dashboard-[A-Za-z0-9-]+\.(js|css)(\.gz|\.br)?$/.test(name) && !names.some((n) => name === n || name === `${n}.gz` || name === `${n}.br`)) rmSync(join(outDir, name));
  }
  const sizes: Record<string, FileSize> = {};
  for (const file of [script, stylesheet, ...chunks]) sizes[base(file.path)] = writeWithSiblings(outDir, base(file.path), file.contents);
  const manifest: DashboardManifest = { script: names[0]!, stylesheet: names[1]!, chunks: names.slice(2), sizes };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

  // Per page: what its first paint loads (stylesheet, script, the script's static imports), and the Overview's dynamic imports on top.
  const outputs = out.metafile!.outputs;
  const key = (name: string) => Object.keys(outputs).find((k) => base(k) === name)!;
  const closure = (names: string[], kinds: string[]): Set<string> => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const imp of outputs[key(name)]?.imports ?? []) if (kinds.includes(imp.kind) && imp.path.endsWith('.js')) visit(base(imp.path));
    };
    names.forEach(visit);
    return seen;
  };
  const gzipOf = (set: Iterable<string>) => [...set].reduce((n, name) => n + sizes[name]!.gzip, 0);
  const everyPage = closure([manifest.script], ['import-statement']);
  const base_ = gzipOf(everyPage) + sizes[manifest.stylesheet]!.gzip;
  const budgets: Budget[] = [{ name: 'dashboard, every page (script + stylesheet)', limit: DASHBOARD_BUDGET, actual: base_, ok: base_ <= DASHBOARD_BUDGET }];
  // Each dynamically imported module's chunk, with what it imports statically, on top of every page's files.
  const lazyEntries = [...everyPage].flatMap((name) => (outputs[key(name)]?.imports ?? []).filter((i) => i.kind === 'dynamic-import').map((i) => base(i.path)));
  for (const chunk of [...new Set(lazyEntries)]) {
    const entry = (outputs[key(chunk)]?.entryPoint ?? '').replace(/^.*?dashboard\//, '');
    const page = LAZY_PAGES[entry];
    if (!page) throw new Error(`dashboard build: ${entry || chunk} is loaded by import() but has no page budget in LAZY_PAGES`);
    const actual = gzipOf(new Set([...everyPage, ...closure([chunk], ['import-statement'])])) + sizes[manifest.stylesheet]!.gzip;
    budgets.push({ name: page.name, limit: page.limit, actual, ok: actual <= page.limit });
  }
  for (const [name, s] of Object.entries(sizes)) options.log?.(`${name.padEnd(28)}${String(s.raw).padStart(9)}${String(s.gzip).padStart(9)}${String(s.brotli).padStart(9)}`);
  for (const b of budgets) options.log?.(`${b.ok ? 'ok  ' : 'OVER'} ${b.name}: ${b.actual} B gzip of ${b.limit} B`);
  return { manifest, budget: budgets[0]!, budgets, ok: budgets.every((b) => b.ok) };
}
