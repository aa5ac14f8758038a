/**
 * Builds the dashboard with the widget's toolchain (esbuild, the same
 * compression and size table): one script and one stylesheet, both with a
 * content hash in their names (cached for a year), gzip and brotli siblings,
 * and manifest.json naming them. Run by `widget/build.ts` after the widget.
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

export interface DashboardManifest {
  script: string;
  stylesheet: string;
  sizes: Record<string, FileSize>;
}

export async function buildDashboard(options: { outDir?: string; log?: (line: string) => void } = {}): Promise<{ manifest: DashboardManifest; budget: Budget; ok: boolean }> {
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
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const script = out.outputFiles.find((f) => f.path.endsWith('.js'));
  const stylesheet = out.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!script || !stylesheet) throw new Error('esbuild produced no dashboard script or stylesheet');
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const names = [base(script.path), base(stylesheet.path)];
  for (const name of readdirSync(outDir)) {
    if (/^dashboard-[A-Za-z0-9]+\.(js|css)(\.gz|\.br)?$/.test(name) && !names.some((n) => name.startsWith(n))) rmSync(join(outDir, name));
  }
  const sizes: Record<string, FileSize> = {
    [names[0]!]: writeWithSiblings(outDir, names[0]!, script.contents),
    [names[1]!]: writeWithSiblings(outDir, names[1]!, stylesheet.contents),
  };
  const manifest: DashboardManifest = { script: names[0]!, stylesheet: names[1]!, sizes };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  const total = sizes[names[0]!]!.gzip + sizes[names[1]!]!.gzip;
  const budget: Budget = { name: 'dashboard script + stylesheet', limit: DASHBOARD_BUDGET, actual: total, ok: total <= DASHBOARD_BUDGET };
  for (const [name, s] of Object.entries(sizes)) options.log?.(`${name.padEnd(28)}${String(s.raw).padStart(9)}${String(s.gzip).padStart(9)}${String(s.brotli).padStart(9)}`);
  options.log?.(`${budget.ok ? 'ok  ' : 'OVER'} ${budget.name}: ${budget.actual} B gzip of ${budget.limit} B`);
  return { manifest, budget, ok: budget.ok };
}
